"""Prints a nextest JUnit report's slowest tests, so that a CI phase's time
can be traced to its tests (docs/benchmarks.md, "CI on a clean clone").

    python3 scripts/slowest_tests.py target/nextest/default/junit.xml [N]
"""
import sys
import xml.etree.ElementTree as ET

path = sys.argv[1]
shown = int(sys.argv[2]) if len(sys.argv) > 2 else 15
cases = [
    (float(case.get("time", "0")), case.get("name", "?"))
    for case in ET.parse(path).getroot().iter("testcase")
]
cases.sort(reverse=True)
total = sum(t for t, _ in cases)
print(f"slowest: {len(cases)} tests, {total:.0f} test-seconds in all")
for seconds, name in cases[:shown]:
    print(f"slowest: {seconds:7.1f} s  {name}")
