// Package schemas embeds the schemas platc needs at run time: the CUE
// definition of the spec language. The binary carries them, so a user's spec is
// checked without copying them into the user's repository.
package schemas

import _ "embed"

// PlatformCUE is the CUE schema of the spec language; #Spec is its top.
//
//go:embed platform.cue
var PlatformCUE []byte

// PlatformFile is the name errors and `platc schema` use for PlatformCUE.
const PlatformFile = "schemas/platform.cue"
