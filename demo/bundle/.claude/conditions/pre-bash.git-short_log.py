"""Keep `git log` short: rewrite a bare `git log` and allow it."""
import json
import sys

payload = json.load(sys.stdin)
command = payload["tool_input"].get("command", "")
if command.strip() == "git log":
    print(json.dumps({"tool_input": {"command": "git log --oneline -20"}, "decision": "allow"}))
