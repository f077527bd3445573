package cli

import (
	"flag"
	"io"
	"regexp"
	"strings"
	"testing"
)

// TestTable checks what help and the README take from each descriptor:
// a unique name, a summary in the error style (lower case, no period), a
// doc, and for a command that takes arguments, what to do without them.
func TestTable(t *testing.T) {
	seen := map[string]bool{}
	for _, cmd := range table() {
		if seen[cmd.name] {
			t.Errorf("%s: two commands of that name", cmd.name)
		}
		seen[cmd.name] = true
		if cmd.summary == "" || strings.ToLower(cmd.summary[:1]) != cmd.summary[:1] || strings.HasSuffix(cmd.summary, ".") {
			t.Errorf("%s: summary %q: want one lower-case line without a period", cmd.name, cmd.summary)
		}
		if cmd.doc == "" {
			t.Errorf("%s: no doc", cmd.name)
		}
		if cmd.minArgs > 0 && cmd.missing == "" {
			t.Errorf("%s: takes %d arguments, and says nothing when they are missing", cmd.name, cmd.minArgs)
		}
		if cmd.minArgs > cmd.maxArgs {
			t.Errorf("%s: at least %d arguments, at most %d", cmd.name, cmd.minArgs, cmd.maxArgs)
		}
	}
}

// TestCompletionListsEveryCommandAndFlag checks each shell's script
// against the table: every command, and every flag of each in that
// command's part of the script.
func TestCompletionListsEveryCommandAndFlag(t *testing.T) {
	for _, shell := range shells {
		var out strings.Builder
		if code := Main([]string{"completion", shell}, &out, io.Discard); code != ExitOK {
			t.Fatalf("completion %s: exit %d", shell, code)
		}
		script := out.String()
		for _, cmd := range table() {
			name := regexp.QuoteMeta(cmd.name)
			commandPattern := map[string]string{
				"bash": `(?m)^\t\tCOMPREPLY=\(\$\(compgen -W '([^']* )?` + name + `( [^']*)?' `,
				"zsh":  `(?m)^\t\t'` + name + `:`,
				"fish": `(?m)^complete -c platc -n __fish_use_subcommand -a ` + name + ` -d `,
			}[shell]
			if !regexp.MustCompile(commandPattern).MatchString(script) {
				t.Errorf("%s: the script does not complete the command %s", shell, cmd.name)
			}
			fs, _ := cmd.flagSet(&call{cmd: cmd, common: newCommon(cmd.name, nil)})
			fs.VisitAll(func(f *flag.Flag) {
				flagName := regexp.QuoteMeta(f.Name)
				flagPattern := map[string]string{
					"bash": `(?m)^\t` + name + `\)\n\t\tflags='([^']* )?-` + flagName + `( [^']*)?'`,
					"zsh":  `(?m)^\t` + name + `\)\n\t\t_arguments( \\\n\t\t\t'[^\n]*)*( \\\n\t\t\t'\*?-` + flagName + `\[)`,
					"fish": `(?m)^complete -c platc -n '__platc_command ` + name + `' -o ` + flagName + ` `,
				}[shell]
				if !regexp.MustCompile(flagPattern).MatchString(script) {
					t.Errorf("%s: the script does not complete -%s of %s", shell, f.Name, cmd.name)
				}
			})
		}
	}
}
