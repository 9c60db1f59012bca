"""What the exporter checkers share: counted failures and ok lines."""
import sys

fails = 0


def fail(msg):
    global fails
    fails += 1
    print("FAIL:", msg)


def ok(msg):
    print("ok:", msg)


def finish():
    sys.exit(1 if fails else 0)
