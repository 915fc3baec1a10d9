#!/bin/sh
# Validates deploy/kubernetes offline against the Kubernetes API schema:
# the npm package kubernetes-models (schemas generated from the API's
# OpenAPI spec) is installed once into the build tree, and no cluster is
# contacted. A deliberately broken copy must fail, so the check can fail.
# Usage: k8s_validate.sh SRCDIR BUILDDIR
set -u
src=$1
build=$2
command -v node >/dev/null && command -v npm >/dev/null ||
	{ echo "k8s_validate: SKIP: no node or npm"; exit 77; }
mods=$build/k8s-validate
if [ ! -f "$mods/node_modules/kubernetes-models/package.json" ]; then
	mkdir -p "$mods"
	cp "$src/tests/k8s/package.json" "$mods/"
	(cd "$mods" && npm install --no-audit --no-fund --silent >npm.log 2>&1) ||
		{ cat "$mods/npm.log"; echo "k8s_validate: SKIP: cannot install kubernetes-models"; exit 77; }
fi
cp "$src/tests/k8s/validate.mjs" "$mods/"
node "$mods/validate.mjs" "$src/deploy/kubernetes" || exit 1
if node "$mods/validate.mjs" "$src/deploy/kubernetes" --broken >"$mods/broken.log"; then
	echo "k8s_validate: FAIL: a broken StatefulSet passed"
	exit 1
fi
grep -q "containerPort must be integer" "$mods/broken.log" ||
	{ cat "$mods/broken.log"; echo "k8s_validate: FAIL: the broken field was not named"; exit 1; }
echo "k8s_validate: a broken StatefulSet is refused: $(head -1 "$mods/broken.log")"
