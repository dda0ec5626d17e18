# shellcheck shell=bash
# shellcheck disable=SC2154 # here, cache and the rest are tests/box/run's
# Sourced by tests/box/run: the QEMU (TCG) half of the KVM box.
# The L1 kernel is Debian's own linux-image-amd64, fetched with
# `apt-get download` and unpacked with `dpkg -x` into the cache; it is never
# installed on the host.

# Modules L1 loads, in dependency order (paths under lib/modules/VER/kernel).
BOX_MODULES=(
	virt/lib/irqbypass.ko
	drivers/crypto/ccp/ccp.ko
	arch/x86/kvm/kvm.ko
	arch/x86/kvm/kvm-amd.ko
	drivers/virtio/virtio_ring.ko
	drivers/virtio/virtio.ko
	drivers/virtio/virtio_pci_legacy_dev.ko
	drivers/virtio/virtio_pci_modern_dev.ko
	drivers/virtio/virtio_pci.ko
	net/9p/9pnet.ko
	net/9p/9pnet_virtio.ko
	fs/netfs/netfs.ko
	fs/fscache/fscache.ko
	fs/9p/9p.ko
)

need_tool() {
	command -v "$1" >/dev/null 2>&1 || die "'$1' not found: install $2 (as root: make deps)"
}

# Prints the name of the kernel package linux-image-amd64 currently depends on.
box_kernel_package() {
	local pkg
	pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*-amd64\)$/\1/p' | head -n 1)
	[[ -n $pkg ]] || die "cannot resolve linux-image-amd64 to a kernel package; run 'apt-get update' (as root: make deps)"
	echo "$pkg"
}

# Unpacks one module, decompressing .ko.xz/.ko.zst if that is how it ships.
box_copy_module() {
	local src=$1 dst=$2
	if [[ -f $src ]]; then
		cp "$src" "$dst"
	elif [[ -f $src.xz ]]; then
		xz -dc "$src.xz" >"$dst"
	elif [[ -f $src.zst ]]; then
		zstd -qdc "$src.zst" >"$dst"
	else
		return 1
	fi
}

# Fills $1 (a new folder) with vmlinuz and the modules of package $2.
box_fetch_kernel() {
	local dir=$1 pkg=$2 work
	work=$(mktemp -d "$dir.fetch.XXXXXX")
	# apt's _apt sandbox user cannot write to a private temp folder.
	if ! (cd "$work" && apt-get download -q -o APT::Sandbox::User=root "$pkg") >"$work/apt.log" 2>&1; then
		cat "$work/apt.log" >&2
		rm -rf "$work"
		die "apt-get download $pkg failed (no network to the Debian archive, or no space in $(dirname "$dir"))"
	fi
	dpkg -x "$work"/*.deb "$work/x" || { rm -rf "$work"; die "dpkg -x of $pkg failed (disk full?)"; }
	mkdir -p "$work/out/modules"
	local ver=${pkg#linux-image-} m
	cp "$work/x/boot/vmlinuz-$ver" "$work/out/vmlinuz" || { rm -rf "$work"; die "$pkg has no /boot/vmlinuz-$ver"; }
	for m in "${BOX_MODULES[@]}"; do
		box_copy_module "$work/x/lib/modules/$ver/kernel/$m" "$work/out/modules/$(basename "$m")" ||
			{ rm -rf "$work"; die "$pkg lacks module $m"; }
	done
	mv "$work/out" "$dir" || { rm -rf "$work"; die "cannot write $dir"; }
	rm -rf "$work"
}

# Builds the L1 initramfs (busybox, modules, init) into $1/initrd.
box_make_initrd() {
	local dir=$1 root m
	root=$(mktemp -d "$dir/initrd.XXXXXX")
	mkdir -p "$root/bin" "$root/modules" "$root/proc" "$root/sys" "$root/dev" "$root/host" "$root/ctl"
	cp /bin/busybox "$root/bin/busybox"
	cp "$here/init" "$root/init"
	chmod 755 "$root/init"
	for m in "${BOX_MODULES[@]}"; do
		cp "$dir/modules/$(basename "$m")" "$root/modules/"
		basename "$m" >>"$root/modules/order"
	done
	(cd "$root" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc --quiet | gzip -1) >"$root.cpio.gz" ||
		{ rm -rf "$root" "$root.cpio.gz"; die "cannot write the box initramfs in $dir (disk full?)"; }
	mv "$root.cpio.gz" "$dir/initrd"
	rm -rf "$root"
}

# Prints the cache folder holding vmlinuz and initrd, filling it on first use.
box_prepare() {
	local cache pkg dir stamp
	cache=${REWIND_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rewind}/box
	mkdir -p "$cache" || die "cannot create the cache folder $cache"
	pkg=$(box_kernel_package)
	dir=$cache/$pkg
	# The initrd depends on the init script, the module list and busybox.
	stamp=$({ cat "$here/init"; printf '%s\n' "${BOX_MODULES[@]}"; cksum </bin/busybox; } | sha256sum | cut -c1-16)
	exec 9>"$cache/.lock"
	flock 9
	if [[ ! -f $dir/vmlinuz ]]; then
		say "fetching $pkg into $cache (once)"
		box_fetch_kernel "$dir" "$pkg"
	fi
	if [[ ! -f $dir/initrd || $(cat "$dir/initrd.stamp" 2>/dev/null) != "$stamp" ]]; then
		box_make_initrd "$dir"
		echo "$stamp" >"$dir/initrd.stamp"
	fi
	flock -u 9
	echo "$dir"
}

# Top of the git checkout holding the current directory, else the directory.
box_checkout() {
	git rev-parse --show-toplevel 2>/dev/null || pwd -P
}

# Writes the command script that L1 runs in the chroot: the caller's
# exported environment, its working directory, then CMD.
box_write_cmd() {
	local ctl=$1
	shift
	{
		echo '# written by tests/box/run'
		export -p | grep -Ev '^declare -x (PWD|OLDPWD|SHLVL|_)(=|$)' || true
		# The box is where a slow native /dev/kvm sends users, so inside it the
		# harness's speed check only guards against a box gone wrong: its loop
		# took 3.7-11.9 ms beside two other boxes, up to 28 ms beside five on
		# two cores (L1's CPU clock runs on while QEMU waits for a host core),
		# and a check at the default 25 ms then refused a test.
		[[ -n ${REWIND_SLOW_KVM_MS:-} ]] || echo 'export REWIND_SLOW_KVM_MS=100'
		printf 'cd -- %q || exit 125\n' "$PWD"
		printf 'exec'
		printf ' %q' "$@"
		printf '\n'
	} >"$ctl/cmd.sh"
}

box_qemu_main() {
	need_tool qemu-system-x86_64 qemu-system-x86
	need_tool busybox busybox-static
	need_tool cpio cpio
	local dir ctl checkout cpus mem rc=0 qpid tpid i
	dir=$(box_prepare)
	checkout=$(box_checkout)
	ctl=$(mktemp -d "${TMPDIR:-/tmp}/rewind-box.XXXXXX") || die "cannot create a temporary folder"
	trap 'rm -rf "$ctl"' EXIT
	box_write_cmd "$ctl" "$@"
	: >"$ctl/out"

	local shares=("$checkout")
	local IFS_SAVE=$IFS
	IFS=: read -r -a extra <<<"${REWIND_BOX_RW:-}"
	IFS=$IFS_SAVE
	for i in "${extra[@]}"; do [[ -n $i ]] && shares+=("$(cd "$i" && pwd -P)"); done
	local virtfs=(-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
		-virtfs "local,path=$ctl,mount_tag=ctl,security_model=none,multidevs=remap")
	: >"$ctl/shares"
	for i in "${!shares[@]}"; do
		virtfs+=(-virtfs "local,path=${shares[$i]},mount_tag=rw$i,security_model=none,multidevs=remap")
		printf 'rw%s %s\n' "$i" "${shares[$i]}" >>"$ctl/shares"
	done

	# One vCPU by default: with two, the L1 guest froze about once in a hundred
	# nested runs (QEMU 7.2 TCG, a cross-CPU wait on the CPU running L2).
	cpus=${REWIND_BOX_CPUS:-1}
	mem=${REWIND_BOX_MEM:-4096}
	say "mode qemu (KVM inside QEMU TCG, kernel ${dir##*/linux-image-}, $cpus vCPUs, $mem MiB)"
	local timeout_cmd=()
	[[ -n ${REWIND_BOX_TIMEOUT:-} ]] && timeout_cmd=(timeout --kill-after=5 "$REWIND_BOX_TIMEOUT")
	# no_timer_check: on a host whose cores are all busy, TCG ran L1 too slowly
	# for the kernel's boot-time check that the IO-APIC timer ticks ("Kernel
	# panic - not syncing: IO-APIC + timer doesn't work!", seen with four
	# boxes on two cores); virtual machines skip it (VMware's platform code
	# sets it), and QEMU's timer works.
	"${timeout_cmd[@]}" qemu-system-x86_64 -accel tcg,thread=multi -cpu max -smp "$cpus" -m "$mem" \
		-display none -monitor none -serial "file:$ctl/console" -no-reboot \
		-kernel "$dir/vmlinuz" -initrd "$dir/initrd" \
		-append "console=ttyS0 quiet loglevel=3 panic=-1 oops=panic no_timer_check rdinit=/init" \
		"${virtfs[@]}" </dev/null >"$ctl/qemu.log" 2>&1 &
	qpid=$!
	# Stopped (Ctrl-C, a CI timeout, make test's own stop), the box stops
	# too: `timeout` runs QEMU in a process group of its own, which neither
	# a terminal's interrupt nor a signal to this script's group reaches.
	trap 'kill -TERM "$qpid" 2>/dev/null; exit 130' INT
	trap 'kill -TERM "$qpid" 2>/dev/null; exit 143' TERM
	trap 'kill -TERM "$qpid" 2>/dev/null; exit 129' HUP
	# Stream CMD's output as L1 writes it to the shared file.
	tail -s 0.2 -c +1 -f --pid=$qpid "$ctl/out" &
	tpid=$!
	wait $qpid || rc=$?
	wait $tpid || true

	if [[ ${REWIND_BOX_VERBOSE:-0} == 1 ]]; then
		cat "$ctl/qemu.log" "$ctl/console" >&2
	fi
	if [[ ! -f $ctl/status ]]; then
		tail -n 30 "$ctl/qemu.log" "$ctl/console" >&2 || true
		[[ -n ${REWIND_BOX_TIMEOUT:-} && ($rc == 124 || $rc == 137) ]] &&
			die "the box ran past REWIND_BOX_TIMEOUT=${REWIND_BOX_TIMEOUT}s and was killed"
		die "the box stopped before CMD finished (qemu status $rc); its console is above, REWIND_BOX_VERBOSE=1 shows all"
	fi
	exit "$(cat "$ctl/status")"
}
