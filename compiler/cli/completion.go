package cli

import (
	"flag"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
)

// shells are the shells platc completion writes a script for.
var shells = []string{"bash", "zsh", "fish"}

// completion is what the scripts complete for one command that runs (a
// subcommand in place of its group): made from the table, so that they
// list every command, subcommand and flag there is.
type completion struct {
	cmd   *command
	flags []flagCompletion
}

// groups returns the commands of the table that have subcommands.
func groups() []*command {
	return slices.DeleteFunc(table(), func(cmd *command) bool { return len(cmd.subs) == 0 })
}

// caseLabel is name as a shell's case pattern: quoted where it has a
// space (a subcommand's).
func caseLabel(name string) string {
	if strings.Contains(name, " ") {
		return "'" + name + "'"
	}
	return name
}

type flagCompletion struct {
	name, usage string
	value       valueKind
	words       []string // with wordsValue
	repeatable  bool
}

// valueKind is what a flag's value is, for completion.
type valueKind int

const (
	noValue    valueKind = iota // a bool flag
	anyValue                    // text: nothing to complete
	dirValue                    // a folder
	wordsValue                  // one of a few words
)

func completions() []completion {
	var out []completion
	for _, cmd := range leaves(table()) {
		fs, _ := cmd.flagSet(newCall(cmd, nil, nil, nil))
		comp := completion{cmd: cmd}
		fs.VisitAll(func(f *flag.Flag) {
			name, usage := flag.UnquoteUsage(f)
			fc := flagCompletion{name: f.Name, usage: firstClause(usage), value: anyValue}
			_, fc.repeatable = f.Value.(repeatable)
			switch w, ok := f.Value.(wordsFlag); {
			case ok:
				fc.value, fc.words = wordsValue, w.words()
			case isBool(f):
				fc.value = noValue
			case name == "dir" || name == "folder":
				fc.value = dirValue
			}
			comp.flags = append(comp.flags, fc)
		})
		out = append(out, comp)
	}
	return out
}

// parenthesis is a remark in parentheses, with the space before it.
var parenthesis = regexp.MustCompile(` ?\([^()]*\)`)

// firstClause is a flag's usage without its remarks in parentheses, up
// to a semicolon: a completion menu has room for one short line.
func firstClause(s string) string {
	s = parenthesis.ReplaceAllString(s, "")
	if i := strings.IndexByte(s, ';'); i > 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

func runCompletion(c *call) int {
	write := map[string]func(io.Writer, []completion){"bash": writeBash, "zsh": writeZsh, "fish": writeFish}[c.args[0]]
	if write == nil {
		return c.usagef("%s", known("shell", c.args[0], shells))
	}
	write(c.stdout, completions())
	return ExitOK
}

func writeBash(w io.Writer, comps []completion) {
	fmt.Fprint(w, `# bash completion for platc, written by platc completion bash.
# Load it with: source <(platc completion bash)
_platc() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	COMPREPLY=()
	if ((COMP_CWORD == 1)); then
		COMPREPLY=($(compgen -W '`)
	fmt.Fprintf(w, "%s' -- \"$cur\"))\n\t\treturn\n\tfi\n", strings.Join(names(table()), " "))
	fmt.Fprint(w, "\tlocal cmd=${COMP_WORDS[1]} flags= words=\n\tcase $cmd in\n")
	for _, g := range groups() {
		fmt.Fprintf(w, "\t%s)\n\t\tif ((COMP_CWORD == 2)); then\n\t\t\tCOMPREPLY=($(compgen -W '%s' -- \"$cur\"))\n\t\t\treturn\n\t\tfi\n\t\tcmd+=\" ${COMP_WORDS[2]}\"\n\t\t;;\n", g.name, strings.Join(g.subNames(), " "))
	}
	fmt.Fprint(w, "\tesac\n\tcase $cmd in\n")
	for _, comp := range comps {
		var flags, cases []string
		for _, f := range comp.flags {
			flags = append(flags, "-"+f.name)
			switch f.value {
			case dirValue:
				cases = append(cases, fmt.Sprintf("\t\t-%s) COMPREPLY=($(compgen -d -- \"$cur\")); return ;;\n", f.name))
			case wordsValue:
				cases = append(cases, fmt.Sprintf("\t\t-%s) COMPREPLY=($(compgen -W '%s' -- \"$cur\")); return ;;\n", f.name, strings.Join(f.words, " ")))
			case anyValue:
				cases = append(cases, fmt.Sprintf("\t\t-%s) return ;;\n", f.name))
			}
		}
		fmt.Fprintf(w, "\t%s)\n\t\tflags='%s'\n", caseLabel(comp.cmd.name), strings.Join(flags, " "))
		if len(comp.cmd.words) > 0 {
			fmt.Fprintf(w, "\t\twords='%s'\n", strings.Join(comp.cmd.words, " "))
		}
		if len(cases) > 0 {
			fmt.Fprintf(w, "\t\tcase $prev in\n%s\t\tesac\n", strings.Join(cases, ""))
		}
		fmt.Fprint(w, "\t\t;;\n")
	}
	fmt.Fprint(w, `	*) return ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$flags" -- "$cur"))
	elif [[ -n $words ]]; then
		COMPREPLY=($(compgen -W "$words" -- "$cur"))
	fi
}
complete -o default -F _platc platc
`)
}

// zshQuote quotes s for a single-quoted zsh word, with the brackets that
// end the explanation of an _arguments specification escaped.
func zshQuote(s string) string {
	return strings.NewReplacer("'", `'\''`, "[", `\[`, "]", `\]`).Replace(s)
}

func writeZsh(w io.Writer, comps []completion) {
	fmt.Fprint(w, `#compdef platc
# zsh completion for platc, written by platc completion zsh.
# Load it with: source <(platc completion zsh), or save it as _platc in a folder of $fpath.
_platc() {
	local -a commands
	commands=(
`)
	for _, cmd := range table() {
		fmt.Fprintf(w, "\t\t'%s:%s'\n", cmd.name, zshQuote(cmd.summary))
	}
	fmt.Fprint(w, `	)
	if ((CURRENT == 2)); then
		_describe -t commands command commands
		return
	fi
	local cmd=$words[2]
	shift words
	((CURRENT--))
	case $cmd in
`)
	for _, g := range groups() {
		fmt.Fprintf(w, "\t%s)\n\t\tif ((CURRENT == 2)); then\n\t\t\tlocal -a subcommands\n\t\t\tsubcommands=(", g.name)
		for _, s := range g.subs {
			fmt.Fprintf(w, "'%s:%s' ", s.short(), zshQuote(s.summary))
		}
		fmt.Fprint(w, ")\n\t\t\t_describe -t subcommands subcommand subcommands\n\t\t\treturn\n\t\tfi\n\t\tcmd+=\" $words[2]\"\n\t\tshift words\n\t\t((CURRENT--))\n\t\t;;\n")
	}
	fmt.Fprint(w, "\tesac\n\tcase $cmd in\n")
	for _, comp := range comps {
		fmt.Fprintf(w, "\t%s)\n\t\t_arguments", caseLabel(comp.cmd.name))
		for _, f := range comp.flags {
			spec := "-" + f.name + "[" + zshQuote(f.usage) + "]"
			if f.repeatable {
				spec = "*" + spec
			}
			switch f.value {
			case dirValue:
				spec += ":" + f.name + ":_files -/"
			case wordsValue:
				spec += ":" + f.name + ":(" + strings.Join(f.words, " ") + ")"
			case anyValue:
				spec += ":" + f.name + ": "
			}
			fmt.Fprintf(w, " \\\n\t\t\t'%s'", spec)
		}
		switch {
		case len(comp.cmd.words) > 0:
			fmt.Fprintf(w, " \\\n\t\t\t'1:argument:(%s)'", strings.Join(comp.cmd.words, " "))
		case comp.cmd.maxArgs > 0:
			fmt.Fprint(w, " \\\n\t\t\t'*:argument:_files'")
		}
		fmt.Fprint(w, "\n\t\t;;\n")
	}
	fmt.Fprint(w, `	esac
}
if [[ $funcstack[1] == _platc ]]; then
	_platc "$@"
else
	compdef _platc platc
fi
`)
}

// fishQuote quotes s for a single-quoted fish word.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, "'", `\'`).Replace(s) + "'"
}

func writeFish(w io.Writer, comps []completion) {
	fmt.Fprint(w, `# fish completion for platc, written by platc completion fish.
# Load it with: platc completion fish | source, or save it as ~/.config/fish/completions/platc.fish
function __platc_command --description 'is the command on the line platc $argv'
	set -l words (commandline -opc)
	test (count $words) -gt (count $argv); and test "$words[2..(math (count $argv) + 1)]" = "$argv"
end
function __platc_group --description 'is the line platc $argv[1], with no subcommand yet'
	set -l words (commandline -opc)
	test (count $words) -eq 2; and test $words[2] = $argv[1]
end
complete -c platc -f
`)
	for _, cmd := range table() {
		fmt.Fprintf(w, "complete -c platc -n __fish_use_subcommand -a %s -d %s\n", cmd.name, fishQuote(cmd.summary))
	}
	for _, g := range groups() {
		for _, s := range g.subs {
			fmt.Fprintf(w, "complete -c platc -n %s -a %s -d %s\n", fishQuote("__platc_group "+g.name), s.short(), fishQuote(s.summary))
		}
	}
	for _, comp := range comps {
		cond := fishQuote("__platc_command " + comp.cmd.name)
		for _, f := range comp.flags {
			line := fmt.Sprintf("complete -c platc -n %s -o %s", cond, f.name)
			switch f.value {
			case dirValue:
				line += " -x -a '(__fish_complete_directories)'"
			case wordsValue:
				line += " -x -a " + fishQuote(strings.Join(f.words, " "))
			case anyValue:
				line += " -x"
			}
			fmt.Fprintf(w, "%s -d %s\n", line, fishQuote(f.usage))
		}
		switch {
		case len(comp.cmd.words) > 0:
			fmt.Fprintf(w, "complete -c platc -n %s -a %s\n", cond, fishQuote(strings.Join(comp.cmd.words, " ")))
		case comp.cmd.maxArgs > 0:
			fmt.Fprintf(w, "complete -c platc -n %s -F\n", cond)
		}
	}
}
