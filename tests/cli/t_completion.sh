# Shell completion: written from the option tables, so every option of
# every command is in both scripts; bash completes commands, kinds, options
# and the names options take; zsh's script parses.
run --completion bash
cp "$T/out" "$T/posenc.bash"
check "bash completion: written" ok_and grep -q '^complete -F _posenc posenc$' "$T/posenc.bash"
run --completion zsh
cp "$T/out" "$T/_posenc"
check "zsh completion: written" ok_and grep -q '^#compdef posenc$' "$T/_posenc"
run --completion fish
check "--completion fish: exit 2, message" eval '[ "$status" -eq 2 ] && grep -q "^posenc: --completion takes bash or zsh$" "$T/err"'

# bash, driven as bash drives it
cat >"$T/drive.sh" <<'DRIVE'
. "$1"
shift
COMP_WORDS=("$@")
COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
COMPREPLY=()
_posenc
echo "${COMPREPLY[*]}"
DRIVE
comp() {
	bash "$T/drive.sh" "$T/posenc.bash" posenc "$@" 2>/dev/null
}
check "bash: commands" [ "$(comp '')" = "generate similarity skew bucket plot explain diff audit resample --help --version --completion" ]
check "bash: plot's operands are files" [ "$(comp plot "$T/posenc.ba")" = "$T/posenc.bash" ]
check "bash: plot's second file too" [ "$(comp plot "$T/posenc.bash" "$T/_pos")" = "$T/_posenc" ]
check "bash: plot's --kind" [ "$(comp plot --kind '')" = "heatmap line" ]
# bash adds '/' and no space after a directory only under -o filenames
check "bash: -o completes into directories (compopt -o filenames)" \
	grep -q -- '-o|--output) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f' "$T/posenc.bash"
check "bash: plot's files complete into directories" \
	grep -q '^		compopt -o filenames 2>/dev/null$' "$T/posenc.bash"
check "bash: a command from its start" [ "$(comp sim)" = "similarity" ]
check "bash: kinds" [ "$(comp generate '')" = "sinusoidal learned rope alibi sincos2d axial timestep mrope" ]
check "bash: options from a prefix" [ "$(comp generate --pre)" = "--preset --precision --prefix-tokens" ]
check "bash: every kind's presets" [ "$(comp generate --preset '')" = "vaswani t2t fairseq marian gpt2 bert scaled mae timm pixtral qwen2-vl-vision llama4-vision flux wan hunyuan-video rope-vit ddpm sd dit pixart sd3 auraflow qwen-image" ]
check "bash: similarity's own preset" [ "$(comp similarity --preset wang)" = "wang-chen" ]
check "bash: formats" [ "$(comp similarity -f '')" = "csv json raw npy safetensors png svg pdf" ]
check "bash: colour maps and reversed ones" [ "$(comp generate --cmap ma)" = "magma magma_r" ]
check "bash: metrics" [ "$(comp similarity --metric '')" = "cosine dot euclidean" ]
check "bash: bucket schemes" [ "$(comp bucket --scheme '')" = "t5 deberta swin" ]
check "bash: a file for --bias" [ "$(comp bucket --bias "$T/posenc.ba")" = "$T/posenc.bash" ]
check "bash: scalings" [ "$(comp generate --scaling l)" = "linear llama3 longrope" ]
check "bash: a file for -i" [ "$(comp similarity -i "$T/posenc.ba")" = "$T/posenc.bash" ]
check "bash: skew's modes" [ "$(comp skew --mode '')" = "bidir causal" ]
check "bash: a file for --rel-h and --rel-w" [ "$(comp skew --rel-h "$T/posenc.ba")" = "$T/posenc.bash" -a \
	"$(comp skew --rel-w "$T/posenc.ba")" = "$T/posenc.bash" ]
check "bash: nothing guessed for -n" [ -s "$T/posenc.bash" -a -z "$(comp generate -n '')" ]
check "bash: resample's interpolations" [ "$(comp resample --interp '')" = "bicubic bilinear nearest" ]
check "bash: timestep's orders" [ "$(comp generate timestep --order '')" = "sin-cos cos-sin" ]
check "bash: a file for --timesteps-file" [ "$(comp generate timestep --timesteps-file "$T/posenc.ba")" = "$T/posenc.bash" ]
# every long option of every command, in both scripts
for cmd in generate similarity skew bucket resample; do
	"$POSENC" $cmd --help | grep -o -- '--[a-z][a-z0-9-]*' | sort -u >"$T/help-$cmd"
	check "$cmd --help lists options" [ "$(wc -l <"$T/help-$cmd")" -gt 20 ]
	missing=
	for o in $(cat "$T/help-$cmd"); do
		case " $(comp $cmd --) " in *" $o "*) ;; *) missing="$missing bash:$o" ;; esac
		grep -q -- "'$o\[\|{-.,$o}'\[" "$T/_posenc" || missing="$missing zsh:$o"
	done
	check "$cmd: every option completes (missing:$missing)" [ -s "$T/help-$cmd" -a -s "$T/_posenc" -a -z "$missing" ]
done
if command -v zsh >/dev/null 2>&1; then
	check "zsh completion parses" eval '[ -s "$T/_posenc" ] && zsh -n "$T/_posenc"'
fi
