#!/usr/bin/env python3
"""Counts the library's public API as a program outside the workspace sees it: the items
reachable from the crate root through public modules and re-exports, less those hidden from
the documentation, with the inherent methods of the public structs and enums. Reads rustdoc's
JSON, which needs a nightly toolchain:

    CARGO_TARGET_DIR=/var/tmp/docjson cargo +nightly rustdoc -p tablebase --lib -- \\
        -Z unstable-options --output-format json
    scripts/api_surface.py /var/tmp/docjson/doc/tablebase.json [--list]

Without the feature `internals` (as above) it counts the API; with `--features internals` what
the workspace's own crates reach. Prints the counts by kind and by top-level module.
"""
import collections
import json
import sys


def hidden(item):
    return any("doc(hidden)" in str(attr) for attr in item.get("attrs", []))


def main():
    doc = json.load(open(sys.argv[1]))
    index = doc["index"]
    kinds = collections.Counter()
    by_module = collections.Counter()
    seen = set()
    names = []

    def module_of(path):
        parts = path.split("::")
        return parts[1] if len(parts) > 2 else "(root)"

    def count_methods(item, kind, path):
        for impl_id in item["inner"][kind]["impls"]:
            impl = index[str(impl_id)]["inner"]["impl"]
            if impl["trait"] is not None:
                continue
            for method_id in impl["items"]:
                method = index[str(method_id)]
                if method["visibility"] == "public" and not hidden(method):
                    kinds["method"] += 1
                    by_module[module_of(path)] += 1

    def walk(module_id, path):
        for child_id in index[str(module_id)]["inner"]["module"]["items"]:
            child = index.get(str(child_id))
            if child is None or child["visibility"] != "public" or hidden(child):
                continue
            kind = next(iter(child["inner"]))
            if kind == "use":
                use = child["inner"]["use"]
                target = use.get("id")
                if target is None or str(target) not in index:
                    continue  # a re-export from another crate
                child = index[str(target)]
                kind = next(iter(child["inner"]))
                if use.get("is_glob"):
                    if kind == "module":
                        walk(target, path)
                    continue
            if child["id"] in seen:
                continue
            seen.add(child["id"])
            name = f"{path}::{child['name']}"
            kinds[kind] += 1
            by_module[module_of(name)] += 1
            names.append((kind, name))
            if kind == "module":
                walk(child["id"], name)
            elif kind in ("struct", "enum"):
                count_methods(child, kind, name)
            elif kind == "trait":
                kinds["trait item"] += len(child["inner"]["trait"]["items"])

    walk(doc["root"], "tablebase")
    print("by kind:", dict(sorted(kinds.items())))
    print("by module:", dict(sorted(by_module.items())))
    print("functions and methods:", kinds["function"] + kinds["method"])
    if "--list" in sys.argv:
        for kind, name in sorted(names, key=lambda n: n[1]):
            print(kind, name)


if __name__ == "__main__":
    main()
