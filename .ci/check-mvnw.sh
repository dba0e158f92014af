#!/usr/bin/env bash
# Checks that a newcomer's first command works: `./mvnw -v` from an empty MAVEN_USER_HOME must install the pinned Maven
# and print its version, both where `unzip` is installed (mvnw fetches the .zip) and where it is not (mvnw fetches the
# .tar.gz). Each archive type has to pass the SHA-256 check of maven-wrapper.properties (issue 31).
# Run from anywhere: bash .ci/check-mvnw.sh   (checks the mvnw and .mvn/ next to this .ci/ directory)
# Exits non-zero unless both runs print the pinned Maven version from the freshly installed distribution.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
properties="$root/.mvn/wrapper/maven-wrapper.properties"
[ -x "$root/mvnw" ] || { echo "check-mvnw: $root/mvnw is missing or not executable" >&2; exit 1; }
[ -f "$properties" ] || { echo "check-mvnw: $properties is missing" >&2; exit 1; }

# The version the wrapper pins, from distributionUrl (…/apache-maven-3.9.12-bin.zip -> 3.9.12).
distribution_url="$(sed -n 's/^distributionUrl=//p' "$properties" | tr -d '[:space:]')"
version="${distribution_url##*/apache-maven-}"
version="${version%-bin.*}"
[ -n "$version" ] && [ "$version" != "$distribution_url" ] \
  || { echo "check-mvnw: cannot read the Maven version from distributionUrl in $properties" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf -- "$work"' EXIT

# A PATH on which `unzip` does not exist: a directory of symlinks to every other command on the current PATH (the
# first of each name wins, as it would in a PATH lookup). Shadowing unzip with a failing script would not do, since
# mvnw asks `command -v unzip`, which would still find it.
no_unzip_bin="$work/path-without-unzip"
mkdir -p "$no_unzip_bin"
IFS=: read -r -a path_dirs <<<"$PATH"
for dir in "${path_dirs[@]}"; do
  [ -n "$dir" ] && [ -d "$dir" ] || continue
  for command_path in "$dir"/*; do
    name="${command_path##*/}"
    [ "$name" != unzip ] || continue
    [ -f "$command_path" ] && [ -x "$command_path" ] || continue
    [ -e "$no_unzip_bin/$name" ] || [ -L "$no_unzip_bin/$name" ] || ln -s -- "$command_path" "$no_unzip_bin/$name"
  done
done
if PATH="$no_unzip_bin" command -v unzip >/dev/null 2>&1; then
  echo "check-mvnw: could not hide unzip from the PATH" >&2
  exit 1
fi

failures=0
# check <label> <PATH to run with>
check() {
  local label="$1" run_path="$2" user_home output status=0
  user_home="$(mktemp -d "$work/maven-user-home.XXXXXX")"
  echo "---- ./mvnw -v $label (empty MAVEN_USER_HOME)"
  output="$(cd "$root" && PATH="$run_path" MAVEN_USER_HOME="$user_home" ./mvnw -v 2>&1)" || status=$?
  printf '%s\n' "$output" | sed 's/^/    /'
  # The version line, and a Maven home inside the empty MAVEN_USER_HOME: the Maven that answered is the one this run
  # fetched, checked and installed, not one that was already on the machine.
  if [ "$status" -eq 0 ] && grep -qF "Apache Maven $version" <<<"$output" \
    && grep -qF "Maven home: $user_home/wrapper/dists/" <<<"$output"; then
    echo "---- ok: $label installed and ran Maven $version"
  else
    echo "---- FAILED: $label (exit status $status; expected 'Apache Maven $version' from a Maven installed in $user_home)" >&2
    failures=$((failures + 1))
  fi
}

if command -v unzip >/dev/null 2>&1; then
  check "with unzip (.zip)" "$PATH"
else
  echo "check-mvnw: unzip is not installed here, so the run 'with unzip' cannot be checked" >&2
  failures=$((failures + 1))
fi
check "without unzip (.tar.gz)" "$no_unzip_bin"

if [ "$failures" -ne 0 ]; then
  echo "check-mvnw: $failures of 2 runs failed" >&2
  exit 1
fi
echo "check-mvnw: ./mvnw -v works from an empty MAVEN_USER_HOME with and without unzip"
