"""judge_cues: what lets a blind judge see past the blind.

A judge weighs a case and its evidence without knowing who produced them
and without being told what to conclude. This finder flags the cues that
break that: names of the models, vendors and agents that wrote a side
(reason `names who produced it`), authorship in the first person
(`claims authorship`), and words that hand the judge its verdict
(`tells the judge what to conclude`). The classifier then decides, per
finding, whether it goes against the filter's intent.

Contract (hookdex finders): stdin {"text", "path", "tool"}; stdout a JSON
list of {"start", "end", "text", "reason"}, offsets in characters.
"""

import json
import re
import sys

CUES = [
    (
        "names who produced it",
        r"\b(?:claude|anthropic|openai|chat-?gpt|gpt-?\d[\w.-]*|codex|gemini|copilot|"
        r"cursor|llama\s?\d*|mistral|sonnet|opus|haiku)\b",
    ),
    ("names who produced it", r"\b[a-z][a-z0-9_-]*@\d+(?:-\d+)?\b"),
    (
        "claims authorship",
        r"\b(?:I|we)\s+(?:wrote|implemented|built|fixed|authored|wrote up|made)\b",
    ),
    (
        "claims authorship",
        r"\b(?:my|our)\s+(?:fix|change|changes|patch|implementation|code|pr|"
        r"pull request|solution|approach|version|branch)\b",
    ),
    (
        "tells the judge what to conclude",
        r"\b(?:clearly|obviously|undeniably|unquestionably|indisputably|"
        r"beyond (?:any|a) doubt|without (?:any|a) doubt)\b",
    ),
    (
        "tells the judge what to conclude",
        r"\bit is (?:clear|obvious|evident) that\b",
    ),
    (
        "tells the judge what to conclude",
        r"\b(?:the|this) (?:correct|right|only) (?:answer|choice|verdict|conclusion|winner) is\b",
    ),
    (
        "tells the judge what to conclude",
        r"\byou (?:should|must) (?:rule|find|decide|conclude|accept|approve|pick|choose)\b",
    ),
    ("tells the judge what to conclude", r"\btrust me\b"),
]

PATTERNS = [(reason, re.compile(pattern, re.IGNORECASE)) for reason, pattern in CUES]


def cues(text):
    """Every cue in text, in order, overlaps dropped (the first found wins)."""
    found = []
    for reason, pattern in PATTERNS:
        for match in pattern.finditer(text):
            start, end = match.span()
            if any(start < e and s < end for s, e, _ in found):
                continue
            found.append((start, end, reason))
    found.sort()
    return [{"start": s, "end": e, "text": text[s:e], "reason": r} for s, e, r in found]


def main():
    request = json.load(sys.stdin)
    print(json.dumps(cues(request.get("text") or "")))


if __name__ == "__main__":
    main()
