"""Trim long pytest output to its head and tail."""
import json
import sys

payload = json.load(sys.stdin)
response = payload.get("tool_response") or {}
lines = (response.get("stdout", "") if isinstance(response, dict) else str(response)).splitlines()
if len(lines) > 60:
    kept = "\n".join(lines[:10] + ["[... trimmed ...]"] + lines[-40:])
    print(json.dumps({"tool_output": kept, "context": f"pytest output trimmed from {len(lines)} lines"}))
