#!/usr/bin/env bash
# platc's GitHub Action (action.yml, at the root of platc's repository)
# runs this script: it builds platc from the action's own checkout, or
# installs the release PLATC_VERSION names, then runs the drift check,
# platc check -format github, on the platform in PLATC_WORKING_DIRECTORY
# with the arguments of PLATC_ARGS. GitHub sets GITHUB_ACTION_PATH (the
# action's checkout) and RUNNER_TEMP (where platc is built); the action's
# inputs set the PLATC_ variables.
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

# The build's output is grouped: the log shows one line for it unless
# opened, and the check's annotations stand out.
# A failure closes the group and says so in an annotation, which the
# summary of the run shows.
if [ -z "${PLATC_VERSION:-}" ]; then
	echo "::group::building platc from $GITHUB_ACTION_PATH"
	if ! (cd "$GITHUB_ACTION_PATH" && go build "$tags" -o "$bin/platc" ./cmd/platc); then
		echo "::endgroup::"
		echo "::error title=platc action::building platc from $GITHUB_ACTION_PATH failed: the log of this step says why"
		exit 1
	fi
else
	echo "::group::installing platc $PLATC_VERSION"
	if ! GOBIN=$bin go install "$tags" "github.com/platc/platc/cmd/platc@$PLATC_VERSION"; then
		echo "::endgroup::"
		echo "::error title=platc action::installing platc $PLATC_VERSION failed: the log of this step says why; the input version is a platc release (v1.2.0), latest, or empty to build the action's own ref"
		exit 1
	fi
fi
"$bin/platc" version
echo "::endgroup::"

# args is split at spaces, and not globbed: an input is one string.
read -r -a args <<<"${PLATC_ARGS:-}"
"$bin/platc" check -C "${PLATC_WORKING_DIRECTORY:-.}" -format github "${args[@]}"
