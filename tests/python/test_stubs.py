"""The type stubs name what the extension has: every public function of
kiln.te and every public method of the main classes, and nothing else."""
import ast
import os

import kiln

PKG = os.path.dirname(kiln.__file__)


def stub_classes(path):
    tree = ast.parse(open(path).read())
    classes = {n.name: {f.name for f in n.body if isinstance(f, ast.FunctionDef)} for n in tree.body
               if isinstance(n, ast.ClassDef)}
    functions = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    return classes, functions


def public(obj):
    return {n for n in dir(obj) if not n.startswith("_")}


def test_te_stub_matches_the_module():
    _, functions = stub_classes(os.path.join(PKG, "te.pyi"))
    names = {n for n in public(kiln.te) if callable(getattr(kiln.te, n)) and n != "Tensor"}
    assert names == functions


def test_class_stubs_match_the_extension():
    classes, functions = stub_classes(os.path.join(PKG, "_kiln.pyi"))
    for cls in (kiln.Schedule, kiln.Kernel, kiln.Target, kiln.Database, kiln.PrimFunc, kiln.Record):
        stubbed = {m for m in classes[cls.__name__] if not m.startswith("_")}
        fields = {n for n, v in vars(cls).items() if not n.startswith("_")}
        if cls is kiln.Record:  # fields are annotated, not defined
            tree = ast.parse(open(os.path.join(PKG, "_kiln.pyi")).read())
            (node,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Record"]
            stubbed |= {a.target.id for a in node.body if isinstance(a, ast.AnnAssign)}
        assert stubbed == fields, cls.__name__
    assert {"build", "reference"} <= functions
