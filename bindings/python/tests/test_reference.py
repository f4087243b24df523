"""The reference is the docstrings (pydoc rdmaverbs, help(rv.Endpoint)):
every public name of the package has one, and every function, method and
property of the objects says what it raises."""
import inspect
import unittest

import rdmaverbs as rv
from rdmaverbs import objects

# What a class's own members are: its methods and properties, those of the
# mixins Endpoint is made of with them.
PARTS = {"Endpoint": ("_DataPath", "_Connection")}


def members(cls):
    own = dict(vars(cls))
    for base in cls.__mro__[1:]:
        if base.__name__ in PARTS.get(cls.__name__, ()):
            own.update(vars(base))
    for name, value in own.items():
        if name.startswith("_") and name not in ("__init__", "__iter__", "__aiter__", "__enter__", "__exit__"):
            continue
        if isinstance(value, (classmethod, staticmethod)):
            value = value.__func__
        if isinstance(value, property):
            value = value.fget
        if callable(value):
            yield name, value


class Reference(unittest.TestCase):
    def test_every_object_class_and_member_says_what_it_raises(self):
        missing = []
        for name in objects.__all__:
            cls = getattr(objects, name)
            if not inspect.isclass(cls):
                continue
            if not (cls.__doc__ or "").strip():
                missing.append(f"{name}: no docstring")
            if issubclass(cls, BaseException) or name in ("SendWR", "RecvWR", "CMEvent"):
                continue
            for member, fn in members(cls):
                doc = inspect.cleandoc(fn.__doc__ or "")
                if member == "__init__" and not doc:
                    continue   # documented by the class
                if "aises" not in doc:
                    missing.append(f"{name}.{member}: {doc[:50]!r}")
        self.assertEqual(missing, [])

    def test_every_function_says_what_it_raises(self):
        names = [n for n in dir(rv) if n.startswith(("rdma_", "ibv_")) and callable(getattr(rv, n))
                 and not inspect.isclass(getattr(rv, n))]
        self.assertGreater(len(names), 100)
        missing = [n for n in names if "raise" not in (getattr(rv, n).__doc__ or "")]
        self.assertEqual(missing, [])


if __name__ == "__main__":
    unittest.main()
