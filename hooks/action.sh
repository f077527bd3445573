#!/usr/bin/env bash
# platc's GitHub Action (action.yml, at the root of platc's repository)
# runs this script: it installs a release of platc (the one PLATC_VERSION
# names, or the action's own ref when that is a release's tag) from its
# archive, verified by its checksum, or builds platc from the action's
# own checkout where no release is named; then it runs the drift check,
# platc check -format github, on the platform in PLATC_WORKING_DIRECTORY
# with the arguments of PLATC_ARGS. GitHub sets GITHUB_ACTION_PATH (the
# action's checkout), GITHUB_ACTION_REF (its ref), RUNNER_OS, RUNNER_ARCH
# and RUNNER_TEMP (where platc is built); the action's inputs set the
# PLATC_ variables. PLATC_RELEASES_URL names another place of releases
# (a mirror; the tests serve their own).
set -euo pipefail

if [ -z "${GITHUB_ACTION_PATH:-}" ]; then
	echo "platc action: GITHUB_ACTION_PATH is not set: this script is platc's GitHub Action; use it in a workflow as uses: platc/platc@<ref>" >&2
	exit 2
fi
# RUNNER_TEMP is the job's: a second use of the action in a job finds platc
# built (go build writes nothing when its output is up to date).
bin=${RUNNER_TEMP:-$(mktemp -d)}/platc-action
# platc's build tag, as its Makefile sets it (kustomize's Go plugin loader
# left out: a smaller binary, the same behaviour; a test holds the two the
# same).
tags=-tags=kustomize_disable_go_plugin_support


# escape escapes $1 as the message of a workflow command, as GitHub's
# toolkit does (%, CR and LF), so that an input holding a line break and
# :: starts no command of its own.
escape() {
	local s=${1//%/%25}
	s=${s//$'\r'/%0D}
	printf '%s' "${s//$'\n'/%0A}"
}

# fail ends the step with an annotation, which the run's summary shows,
# closing the group the log shows as one line, if one is open.
group=""
fail() {
	[ -z "$group" ] || echo "::endgroup::"
	echo "::error title=platc action::$(escape "$1")"
	exit 1
}

# The inputs are checked before anything is installed. The version is a
# release's tag, latest, or empty.
semver='^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?$'
if [ -n "${PLATC_VERSION:-}" ] && [ "$PLATC_VERSION" != latest ] && ! [[ "$PLATC_VERSION" =~ $semver ]]; then
	fail "the input version $PLATC_VERSION is not a release of platc: write a release's tag (v1.2.0), latest, or nothing to use the action's own ref"
fi
# args is split at spaces, tabs and line breaks, every line of it (the
# form args: | gives), and not globbed: each word is an argument as it
# is. A word the shell would have read otherwise (a quote, an escape, a
# variable) is refused, not passed as written.
args=()
while IFS=$' \t\r' read -r -a words; do
	args+=(${words[@]+"${words[@]}"})
done <<<"${PLATC_ARGS:-}"
for word in ${args[@]+"${args[@]}"}; do
	case $word in
	*[\'\"\\\`\$]*)
		fail "the input args holds the word $word, which the action cannot pass as written: it splits args at spaces and line breaks and passes each word as it is, with no quotes, escapes or variables; write each argument without them (a folder whose name holds a space goes in working-directory)"
		;;
	esac
done

# download installs release $1's archive for this runner into $bin, after
# checking it against the release's checksums. It fails (status 1) when
# the release has no such archive, so that platc is built instead; an
# archive that is not the one its checksum names ends the step.
download() {
	local v=$1 os arch ext=tar.gz
	case "${RUNNER_OS:-$(uname -s)}" in
	Linux) os=linux ;;
	macOS | Darwin) os=darwin ;;
	Windows | MINGW* | MSYS*) os=windows ext=zip ;;
	*) return 1 ;;
	esac
	case "${RUNNER_ARCH:-$(uname -m)}" in
	X64 | x86_64 | amd64) arch=amd64 ;;
	ARM64 | arm64 | aarch64) arch=arm64 ;;
	*) return 1 ;;
	esac
	local name="platc_${v#v}_${os}_${arch}.$ext" sums="platc_${v#v}_checksums.txt"
	local dir
	dir=$(mktemp -d)
	if ! curl -fsSL -o "$dir/$name" "$releases/download/$v/$name" ||
		! curl -fsSL -o "$dir/$sums" "$releases/download/$v/$sums"; then
		echo "platc $v has no release archive $name at $releases: building it with go install"
		return 1
	fi
	local want got
	want=$(awk -v n="$name" '$2 == n { print $1 }' "$dir/$sums")
	if command -v sha256sum >/dev/null; then
		got=$(sha256sum "$dir/$name" | awk '{ print $1 }')
	else
		got=$(shasum -a 256 "$dir/$name" | awk '{ print $1 }')
	fi
	if [ -z "$want" ] || [ "$want" != "$got" ]; then
		fail "$name of $releases/download/$v is not the archive its checksums file names (sha256 $got, want ${want:-none}): download it again, or report it to platc"
	fi
	mkdir -p "$bin"
	if [ "$os" = windows ]; then
		unzip -q -o "$dir/$name" -d "$bin"
	else
		tar -xzf "$dir/$name" -C "$bin"
	fi
	rm -rf "$dir"
}

# The release to install: the input version, else the action's own ref
# when it is a release's tag (uses: platc/platc@v1.2.0).
version=${PLATC_VERSION:-}
if [ -z "$version" ] && [[ "${GITHUB_ACTION_REF:-}" =~ $semver ]]; then
	version=$GITHUB_ACTION_REF
fi
releases=${PLATC_RELEASES_URL:-https://github.com/platc/platc/releases}

# The build's output is grouped: the log shows one line for it unless
# opened, and the check's annotations stand out.
if [ -n "$version" ]; then
	if [ "$version" = latest ]; then
		# The latest release's page redirects to its tag's.
		url=$(curl -fsSLI -o /dev/null -w '%{url_effective}' "$releases/latest") || url=""
		if [[ "$url" =~ /tag/(v[^/]+)$ ]] && tag=${BASH_REMATCH[1]} && [[ "$tag" =~ $semver ]]; then
			version=$tag
		fi
	fi
	group=1
	echo "::group::installing platc $version"
	if ! download "$version"; then
		if ! GOBIN=$bin go install "$tags" "github.com/platc/platc/cmd/platc@$version"; then
			fail "installing platc $version failed: the log of this step says why; the input version is a platc release (v1.2.0), latest, or empty to use the action's own ref"
		fi
	fi
else
	group=1
	echo "::group::building platc from $(escape "$GITHUB_ACTION_PATH")"
	if ! (cd "$GITHUB_ACTION_PATH" && go build "$tags" -o "$bin/platc" ./cmd/platc); then
		fail "building platc from $GITHUB_ACTION_PATH failed: the log of this step says why"
	fi
fi
"$bin/platc" version
echo "::endgroup::"

"$bin/platc" check -C "${PLATC_WORKING_DIRECTORY:-.}" -format github ${args[@]+"${args[@]}"}
