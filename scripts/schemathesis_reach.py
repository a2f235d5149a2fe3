"""Sums up scripts/schemathesis' record of answers (`METHOD PATH STATUS PHASE`
a line) per documented operation: which were reached beyond their 404, which
answered a success, and the statuses of those that were not.

    python3 scripts/schemathesis_reach.py openapi.json reach.txt

"Beyond 404": an answer other than 401, 403 and 404, i.e. the request got
past authentication and found what it named (or failed later, on its
content). 400 counts: a lookup of a malformed id is refused before any
read, but so is a bad field of a request on a real one; the 2xx figure is
the strict one.
"""

import collections
import json
import sys

METHODS = ("get", "put", "post", "patch", "delete")
BEFORE_LOOKUP = {401, 403, 404}


def main(doc_path, reach_path):
    doc = json.load(open(doc_path))
    operations = [(m.upper(), p) for p, item in doc["paths"].items() for m in METHODS if m in item]
    seen = collections.defaultdict(collections.Counter)
    by_phase = collections.defaultdict(set)
    for line in open(reach_path):
        method, path, status, phase = (line.split() + ["-"])[:4]
        seen[(method, path)][int(status)] += 1
        if 200 <= int(status) < 300:
            by_phase[phase].add((method, path))
    beyond = [op for op in operations if any(s not in BEFORE_LOOKUP for s in seen[op])]
    success = [op for op in operations if any(200 <= s < 300 for s in seen[op])]
    total = len(operations)
    calls = sum(sum(c.values()) for c in seen.values())

    def show(op):
        counts = ", ".join(f"{s}×{n}" for s, n in sorted(seen[op].items())) or "never called"
        return f"  {op[0]} {op[1]}: {counts}"

    print(f"requests recorded: {calls}")
    print(f"operations reached beyond 404: {len(beyond)} of {total}")
    print(f"operations answered a success (2xx): {len(success)} of {total}")
    for phase in sorted(by_phase):
        print(f"  in the {phase} phase: {len(by_phase[phase])}")
    missing = [op for op in operations if op not in beyond]
    if missing:
        print("never reached beyond 404:")
        print("\n".join(show(op) for op in missing))
    no_success = [op for op in operations if op not in success and op in beyond]
    if no_success:
        print("reached, never a success:")
        print("\n".join(show(op) for op in no_success))


if __name__ == "__main__":
    main(*sys.argv[1:])
