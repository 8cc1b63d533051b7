#!/usr/bin/env bash
# The generated 1,000-skill project the benches and scripts/dist-check.sh time: DIR/skills/
# gen-skill-0000 … gen-skill-0999, one SKILL.md each, and DIR/.git (a project root).
#   benches/gen-p1000.sh DIR
set -euo pipefail
gen=${1:?usage: benches/gen-p1000.sh DIR}
for k in $(seq 0 999); do
  d=$gen/skills/gen-skill-$(printf %04d "$k")
  mkdir -p "$d"
  printf -- '---\nname: gen-skill-%04d\ndescription: Generated skill number %d for files, reports and data about topic%d.\nkeywords: [zeta%dx, topic%d widget, alpha%d, beta%d]\n---\n# body\n' "$k" "$k" "$k" "$k" "$k" "$k" "$k" >"$d/SKILL.md"
done
mkdir -p "$gen/.git"
