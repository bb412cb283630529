#!/usr/bin/env bash
# Log every tool call of this machine (detached).
mkdir -p "${HOOKDEX_HOME:-$HOME/.hookdex}/logs"
{ cat; echo; } >> "${HOOKDEX_HOME:-$HOME/.hookdex}/logs/calls.jsonl"
