#!/usr/bin/env bash
# Deny kubectl commands that change a cluster; reads pass. Cluster writes go
# through GitOps.
command=$(python3 -c 'import json,sys; print(json.load(sys.stdin).get("tool_input",{}).get("command",""))' 2>/dev/null)
if grep -Eq 'kubectl[[:space:]]+([^|;&]*[[:space:]])?(edit|patch|apply|delete|create|replace|scale|drain|cordon|label|annotate|set)([[:space:]]|$)' <<<"$command"; then
  echo "kubectl writes go through GitOps; use a read-only command (get, describe, logs)" >&2
  exit 2
fi
exit 0
