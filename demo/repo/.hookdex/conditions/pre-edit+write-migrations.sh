#!/usr/bin/env bash
# Remind before edits to migrations.
python3 -c 'import json,sys; print(json.load(sys.stdin)["tool_input"].get("file_path",""))' | grep -q '/migrations/' \
  && echo "Migrations are append-only; add a new file."
exit 0
