# platforms.sh: the release's platforms as dist.sh builds them and
# dist-test.sh checks them. Sourced; needs die().

# format OS/ARCH: what file(1) says of ctxls's binary for it (the Linux
# ones are linked statically).
format() {
	case $1 in
	linux/amd64) echo 'ELF 64-bit LSB executable, x86-64, .*statically linked' ;;
	linux/arm64) echo 'ELF 64-bit LSB executable, ARM aarch64, .*statically linked' ;;
	darwin/amd64) echo 'Mach-O 64-bit x86_64 executable' ;;
	darwin/arm64) echo 'Mach-O 64-bit arm64 executable' ;;
	windows/amd64) echo 'PE32\+ executable \(console\) x86-64' ;;
	*) die "$1: no platform of a release" ;;
	esac
}

# isfor FILE OS/ARCH WHAT: FILE is a binary for OS/ARCH, else dies naming
# WHAT.
isfor() {
	file -b "$1" | grep -Eq "^$(format "$2")" || die "$3 is not a $2 binary: $(file -b "$1")"
}

# npm's names (node's process.platform and process.arch), which VS Code's
# targets use too.
npm_cpu() { case $1 in amd64) echo x64 ;; *) echo "$1" ;; esac }
npm_os() { case $1 in windows) echo win32 ;; *) echo "$1" ;; esac }
