package cli

import (
	"flag"
	"io"
	"regexp"
	"strings"
	"testing"
)

// TestTable checks what help and docs/cli.md take from each descriptor,
// subcommands too: a unique name, a summary in the error style (lower
// case, no period), a doc, and for a command that takes arguments, what
// to do without them; a group runs nothing and has no flags, and each
// other command runs.
func TestTable(t *testing.T) {
	seen := map[string]bool{}
	var all []*command
	for _, cmd := range table() {
		all = append(append(all, cmd), cmd.subs...)
	}
	for _, cmd := range all {
		if seen[cmd.name] {
			t.Errorf("%s: two commands of that name", cmd.name)
		}
		seen[cmd.name] = true
		if len(cmd.subs) > 0 && (cmd.flags != nil || cmd.dir || cmd.compile || cmd.format || cmd.maxArgs > 0) {
			t.Errorf("%s: a group with flags or arguments of its own, which no one can give", cmd.name)
		}
		if len(cmd.subs) == 0 && cmd.flags == nil {
			t.Errorf("%s: runs nothing", cmd.name)
		}
		for _, sub := range cmd.subs {
			if !strings.HasPrefix(sub.name, cmd.name+" ") || strings.Contains(sub.short(), " ") || len(sub.subs) > 0 {
				t.Errorf("%s: subcommand %q: want the group's name and one word of its own", cmd.name, sub.name)
			}
		}
		if cmd.summary == "" || strings.ToLower(cmd.summary[:1]) != cmd.summary[:1] || strings.HasSuffix(cmd.summary, ".") {
			t.Errorf("%s: summary %q: want one lower-case line without a period", cmd.name, cmd.summary)
		}
		if cmd.doc == "" {
			t.Errorf("%s: no doc", cmd.name)
		}
		if cmd.minArgs > 0 && cmd.missing == "" {
			t.Errorf("%s: takes %d arguments, and says nothing when they are missing", cmd.name, cmd.minArgs)
		}
		if cmd.maxArgs >= 0 && cmd.minArgs > cmd.maxArgs {
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
			for _, sub := range cmd.subs {
				short := regexp.QuoteMeta(sub.short())
				subPattern := map[string]string{
					"bash": `(?m)^\t` + name + `\)\n\t\tif \(\(COMP_CWORD == 2\)\); then\n\t\t\tCOMPREPLY=\(\$\(compgen -W '([^']* )?` + short + `( [^']*)?' `,
					"zsh":  `(?m)^\t` + name + `\)\n\t\tif \(\(CURRENT == 2\)\); then\n\t\t\tlocal -a subcommands\n\t\t\tsubcommands=\(.*'` + short + `:`,
					"fish": `(?m)^complete -c platc -n '__platc_group ` + name + `' -a ` + short + ` -d `,
				}[shell]
				if !regexp.MustCompile(subPattern).MatchString(script) {
					t.Errorf("%s: the script does not complete the subcommand %s", shell, sub.name)
				}
			}
		}
		for _, cmd := range leaves(table()) {
			name := regexp.QuoteMeta(caseLabel(cmd.name))
			fs, _ := cmd.flagSet(newCall(cmd, nil, nil, nil))
			fs.VisitAll(func(f *flag.Flag) {
				flagName := regexp.QuoteMeta(f.Name)
				flagPattern := map[string]string{
					"bash": `(?m)^\t` + name + `\)\n\t\tflags='([^']* )?-` + flagName + `( [^']*)?'`,
					"zsh":  `(?m)^\t` + name + `\)\n\t\t_arguments( \\\n\t\t\t'[^\n]*)*( \\\n\t\t\t'\*?-` + flagName + `\[)`,
					"fish": `(?m)^complete -c platc -n '__platc_command ` + regexp.QuoteMeta(cmd.name) + `' -o ` + flagName + ` `,
				}[shell]
				if !regexp.MustCompile(flagPattern).MatchString(script) {
					t.Errorf("%s: the script does not complete -%s of %s", shell, f.Name, cmd.name)
				}
			})
		}
	}
}
