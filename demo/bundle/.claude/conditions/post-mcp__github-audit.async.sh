#!/usr/bin/env bash
# Audit every GitHub MCP call, detached: one JSON line per call.
mkdir -p "${HOOKDEX_HOME:-$HOME/.hookdex}/logs"
cat >> "${HOOKDEX_HOME:-$HOME/.hookdex}/logs/mcp-audit.jsonl"
echo >> "${HOOKDEX_HOME:-$HOME/.hookdex}/logs/mcp-audit.jsonl"
