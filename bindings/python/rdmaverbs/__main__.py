"""python -m rdmaverbs --layout: this binding's layout lines (see layout())."""
import sys

from . import layout

if sys.argv[1:] != ["--layout"]:
    sys.exit("usage: python -m rdmaverbs --layout")
for line in layout():
    print(line)
