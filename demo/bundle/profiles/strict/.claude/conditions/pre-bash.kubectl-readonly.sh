#!/usr/bin/env bash
# The strict profile's kubectl guard: only get/describe/logs/top pass.
command=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["tool_input"].get("command",""))')
if grep -Eq 'kubectl[[:space:]]+([^|;&]*[[:space:]])?(edit|patch|apply|delete|create|replace|scale)([[:space:]]|$)' <<<"$command"; then
  echo "kubectl writes go through GitOps" >&2
  exit 2
fi
