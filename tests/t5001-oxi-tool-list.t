#!/bin/sh
# oxi-tool --list: one line of JSON, the definitions of the three tools
cd "$(dirname "$0")" && . ./lib.sh || exit 1

plan 11

check_exit '--list exits 0' 0 'oxi-tool --list >"$TMP/list" 2>"$TMP/err"'
check_lines '--list prints one line' 1 "$TMP/list"
check '--list prints nothing on stderr' '[ ! -s "$TMP/err" ]'
check '--list is an array of name, description, parameters (and how the shell runs)' '
	python3 - "$TMP/list" <<"PY"
import json, sys
tools = json.load(open(sys.argv[1]))
assert isinstance(tools, list), tools
names = [t["name"] for t in tools]
assert names[:3] == ["read_file", "write_file", "list_dir"], names
assert len(set(names)) == len(names), names
for t in tools:
    x = t.pop("x-oxi", None)
    assert sorted(t) == ["description", "name", "parameters"], t
    assert x is None or (t["name"] == "shell" and x == {
        "sandbox": "confined", "network": "asks"}), x
    assert isinstance(t["description"], str) and t["description"], t
    p = t["parameters"]
    assert p["type"] == "object", p
    assert p["additionalProperties"] is False, p
    assert isinstance(p["properties"], dict), p
    for k, v in p["properties"].items():
        assert v["type"] in ("string", "integer", "boolean", "object",
                             "array"), (k, v)
        assert v["description"], (k, v)
PY'
check 'the schemas name the arguments and what is required' '
	python3 - "$TMP/list" <<"PY"
import json, sys
t = {x["name"]: x["parameters"] for x in json.load(open(sys.argv[1]))}
assert sorted(t["read_file"]["properties"]) == ["limit", "offset", "path"]
assert t["read_file"]["required"] == ["path"]
assert t["read_file"]["properties"]["offset"]["type"] == "integer"
assert sorted(t["write_file"]["properties"]) == ["content", "path"]
assert t["write_file"]["required"] == ["path", "content"]
assert list(t["list_dir"]["properties"]) == ["path"]
assert "required" not in t["list_dir"]
PY'
check '-L is --list' 'oxi-tool -L | cmp -s - "$TMP/list"'
check '--list after other options, as oxi-loop appends it' \
	'oxi-tool -v -o 1k -w "$TMP/ws" --list | cmp -s - "$TMP/list"'
check '--list does not make the workspace' '[ ! -e "$TMP/ws" ]'
check_exit 'a bad option exits 100' 100 'oxi-tool -x --list'
check_exit '--help exits 0' 0 \
	'oxi-tool --help | grep -q "^usage: oxi-tool \[-v\]"'
check_exit '--version exits 0' 0 'oxi-tool --version | grep -q "^oxi-tool "'
done_testing
