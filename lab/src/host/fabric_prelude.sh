# The fabric's guest prelude (lab/src/host/fabric.rs): what each VM of a
# fabric runs first, as root, before its own command. Every value comes
# as an argument; the files with values in them (hosts, slurm.conf and
# cgroup.conf, the keys, known_hosts, the command) were written by the
# host into the run dir, which the guest sees read-only, and into this
# node's rwdir:
#
#   sh prelude.sh DIR INDEX N MAC ADDR SLURM SSH BOOT_WAIT RUN_WAIT MAC1 ADDR1
#
# DIR the run dir; node INDEX of N, its NIC's MAC and its address ADDR
# on the segment (a /24); SLURM and SSH are 1 or 0; BOOT_WAIT bounds the wait for
# the other nodes to come up, RUN_WAIT the wait for them to finish their
# commands. MAC1 and ADDR1 are its second NIC's, on rail 1 (a /24 of its
# own), or empty when it has one. It writes DIR/nodeINDEX/{booted,ready,exit,output,failed}; the
# other nodes wait on each other through those files (9p without a cache
# shows one VM's writes to the others at once).
set -u
dir=$1 i=$2 n=$3 mac=$4 addr=$5 slurm=$6 ssh=$7 boot_wait=$8 run_wait=$9
mac1=${10:-} addr1=${11:-}
node=node$i
rw=$dir/$node
: >"$rw/booted"

say() { echo "fabric $node: $*"; }

# A node that cannot set itself up says why, in its rwdir and on the
# console, and ends: the others see its `failed` and stop waiting for it.
fail() {
	say "FAILED: $*"
	echo "$*" >"$rw/failed"
	echo 125 >"$rw/exit"
	exit 125
}

# wait_for SECS WHAT CMD...: runs CMD until it succeeds, each try bounded,
# for at most SECS seconds.
wait_for() {
	secs=$1 what=$2
	shift 2
	end=$(($(date +%s) + secs))
	until timeout 20 "$@" >/dev/null 2>&1; do
		[ "$(date +%s)" -lt "$end" ] || fail "no $what after ${secs}s"
		sleep 1
	done
}

# all_have FILE [ABORT]: whether every node has written FILE; with ABORT,
# ends this node when another one failed.
all_have() {
	# The others' files reach this node through the host's root, whose 9p
	# mount caches a lookup that failed (a file not written yet): each
	# node's dir is listed instead, which asks the host every time. (Its
	# caches dropped before each look cost a node a tenth of a core for
	# as long as it waited, most of a fabric test.)
	k=0 all=0
	while [ "$k" -lt "$n" ]; do
		names="
$(ls -A "$dir/node$k" 2>/dev/null)
"
		if [ -n "${2:-}" ]; then
			case "$names" in *"
failed
"*) fail "node$k failed: $(cat "$dir/node$k/failed")" ;;
			esac
		fi
		case "$names" in *"
$1
"*) ;;
		*) all=1 ;;
		esac
		k=$((k + 1))
	done
	return $all
}

# barrier FILE SECS [ABORT] [EVERY]: waits until every node has written
# FILE, looking every EVERY seconds (1).
barrier() {
	end=$(($(date +%s) + $2))
	until all_have "$1" "${3:-}"; do
		[ "$(date +%s)" -lt "$end" ] || fail "not every node wrote $1 within ${2}s"
		sleep "${4:-1}"
	done
}

# rxe_up DEV MAC ADDR: the NIC with MAC up with ADDR/24, and Soft-RoCE
# device DEV on it, ACTIVE.
rxe_up() {
	nic=
	for d in /sys/class/net/*; do
		[ "$(cat "$d/address")" = "$2" ] && nic=${d##*/}
	done
	[ -n "$nic" ] || fail "no NIC with MAC $2"
	ip link set "$nic" up || fail "ip link set $nic up"
	ip addr add "$3/24" dev "$nic" || fail "ip addr add $3/24 dev $nic"
	timeout 60 rdma link add "$1" type rxe netdev "$nic" || fail "rdma link add $1"
	# shellcheck disable=SC2016 # sh -c's script reads its own $1.
	wait_for 60 "ACTIVE $1 port 1" sh -c 'rdma link show "$1/1" | grep -q "state ACTIVE"' sh "$1"
	say "$nic $3, $1 ACTIVE"
}

net_up() {
	hostname "$node" || fail "hostname"
	mount --bind "$rw/hosts" /etc/hosts || fail "bind-mounting /etc/hosts"
	ip link set lo up
	timeout 60 modprobe rdma_rxe || fail "modprobe rdma_rxe"
	# rdma_cm's device node, as a host with rdma-core has it at boot.
	timeout 60 modprobe rdma_ucm || fail "modprobe rdma_ucm"
	# libibverbs loads every provider its list names (17 on Debian) in
	# each program that opens a device, a fifth of a second a start under
	# TCG: this throwaway node lists rxe's alone, as the lab's VMs do.
	mkdir -p /run/rdma-lab/libibverbs.d &&
		cp /etc/libibverbs.d/rxe.driver /run/rdma-lab/libibverbs.d/ &&
		mount --bind /run/rdma-lab/libibverbs.d /etc/libibverbs.d ||
		fail "listing rxe's provider alone"
	rxe_up rxe0 "$mac" "$addr"
	[ -z "$mac1" ] || rxe_up rxe1 "$mac1" "$addr1"
}

# munged with the run's key, at munge's default socket, so that every
# client (srun, slurmd, sbcast) finds it without options.
munge_up() {
	install -d -m 0755 /run/munge
	install -m 0400 "$dir/munge.key" /run/munge/munge.key || fail "munge key"
	munged --key-file=/run/munge/munge.key --socket=/run/munge/munge.socket.2 \
		--pid-file=/run/munge/munged.pid --seed-file=/run/munge/munged.seed \
		--log-file="$rw/munged.log" || fail "munged (see $rw/munged.log)"
	wait_for 30 "munge credential" munge -n
}

# The run's slurm.conf where every Slurm command looks first
# (/etc/slurm, a tmpfs over the host's read-only one) and in SLURM_CONF;
# slurmctld on the first node, answering before this node says it is ready.
slurm_up() {
	munge_up
	install -d -m 0755 /run/slurm /run/slurm/ctld /run/slurm/d
	mount -t tmpfs -o mode=0755 tmpfs /etc/slurm || fail "tmpfs on /etc/slurm"
	cp "$dir/slurm.conf" "$dir/cgroup.conf" /etc/slurm/ || fail "slurm.conf, cgroup.conf"
	export SLURM_CONF=/etc/slurm/slurm.conf
	if [ "$i" = 0 ]; then
		slurmctld -L "$rw/slurmctld.log" || fail "slurmctld (see $rw/slurmctld.log)"
		wait_for 90 "answer from slurmctld" sh -c 'scontrol ping | grep -q UP'
		say "slurmctld up"
	fi
}

# slurmd, once slurmctld answers (after the ready barrier); then every
# node waits until Slurm calls all N idle, so a command may srun at once.
slurmd_up() {
	# slurmd initializes its cgroup plugin even when no plugin confines a
	# job (22.05 and 24.11): it needs a cgroup file system there (v2, or
	# v1's tmpfs of hierarchies), which nothing in the guest mounts.
	fs=$(stat -f -c %T /sys/fs/cgroup)
	if [ "$fs" != cgroup2fs ] && [ "$fs" != tmpfs ]; then
		mount -t cgroup2 cgroup2 /sys/fs/cgroup || fail "mounting cgroup2"
	fi
	# Where systemd would put slurmstepd's scope (cgroup.conf's
	# IgnoreSystemd: slurmd makes the scope, not its parent).
	mkdir -p /sys/fs/cgroup/system.slice || fail "the cgroup system.slice"
	slurmd -N "$node" -L "$rw/slurmd.log" || fail "slurmd (see $rw/slurmd.log)"
	# shellcheck disable=SC2016 # sh -c's script reads its own $1.
	wait_for "$boot_wait" "$n idle nodes in sinfo" \
		sh -c '[ "$(sinfo -h -N -o %t | grep -cx idle)" -eq "$1" ]' sh "$n"
	say "slurm: $n nodes idle"
}

sshd_up() {
	install -d -m 0755 /run/sshd
	install -d -m 0700 /run/fabric-sshd
	install -m 0600 "$dir/ssh/host_ed25519" /run/fabric-sshd/ssh_host_ed25519_key ||
		fail "sshd's host key"
	# Debian's own settings where they matter: UsePAM as its sshd_config
	# has it, which also lets root in although virtme-ng's /etc/shadow
	# locks every account ("!"): without PAM, sshd refuses a locked one.
	cat >/run/fabric-sshd/sshd_config <<'EOF'
HostKey /run/fabric-sshd/ssh_host_ed25519_key
PidFile /run/fabric-sshd/sshd.pid
AuthorizedKeysFile /etc/ssh/fabric/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM yes
PrintMotd no
Subsystem sftp internal-sftp
EOF
	# The boot is over: logins are welcome (systemd-user-sessions' job).
	rm -f /run/nologin
	/usr/sbin/sshd -f /run/fabric-sshd/sshd_config -E "$rw/sshd.log" ||
		fail "sshd (see $rw/sshd.log)"
}

# root's ssh as an administrator's: the run's key, trusted by every node,
# the nodes' host key, BatchMode. The files live in /etc/ssh (a writable
# overlay in the guest, root's and mode 0755, which sshd's StrictModes
# accepts), named by sshd's AuthorizedKeysFile and by a client config in
# ssh_config.d. The home is a fresh one, so no ~/.ssh of the host's is
# read first.
root_ssh() {
	keys=/etc/ssh/fabric
	install -d -m 0755 "$keys" /etc/ssh/ssh_config.d || fail "$keys"
	{
		install -m 0600 "$dir/ssh/id_ed25519" "$keys/id_ed25519" &&
			install -m 0644 "$dir/ssh/id_ed25519.pub" "$keys/authorized_keys" &&
			install -m 0644 "$dir/ssh/known_hosts" "$keys/known_hosts"
	} || fail "root's ssh files"
	printf 'Host *\n\tBatchMode yes\n\tStrictHostKeyChecking yes\n\tConnectTimeout 30\n\tIdentityFile %s\n\tUserKnownHostsFile %s\n' \
		"$keys/id_ed25519" "$keys/known_hosts" >/etc/ssh/ssh_config.d/fabric.conf ||
		fail "the ssh client's config"
	home=$(getent passwd root | cut -d: -f6)
	# Root's home as a fresh node's: writable (an ssh-started rank writes
	# its results under it), holding only Debian's default dot files, not
	# the dot files of whoever runs the test (a slow shell start-up of
	# theirs made each ssh of the faults outlast its bound). The run's
	# dirs, this node's rwdir among them, may lie below it (a checkout in
	# /root): they are bound back on top, or the new home would hide them.
	mkdir -p /run/fabric-run
	mount --rbind "$dir" /run/fabric-run || fail "binding $dir"
	mode=$(stat -c %a "$home")
	mount -t tmpfs tmpfs "$home" || fail "tmpfs on $home"
	cp -a /etc/skel/. "$home"/ 2>/dev/null
	chmod "$mode" "$home"
	case "$dir" in
	"$home"/*)
		mkdir -p "$dir" && mount --rbind /run/fabric-run "$dir" || fail "binding $dir back"
		;;
	esac
	[ -e "$rw/booted" ] || fail "$rw is hidden"
}

net_up
[ "$slurm" = 1 ] && slurm_up
[ "$ssh" = 1 ] && root_ssh && sshd_up
: >"$rw/ready"
barrier ready "$boot_wait" abort
say "all $n nodes ready"
[ "$slurm" = 1 ] && slurmd_up

export FABRIC_DIR="$dir" FABRIC_NODE="$node" FABRIC_NODES="$n"
say "running $rw/exec.sh"
{
	sh "$rw/exec.sh" </dev/null
	echo $? >"$rw/exit.tmp"
} 2>&1 | tee "$rw/output"
mv "$rw/exit.tmp" "$rw/exit"
status=$(cat "$rw/exit")
say "command exited $status; waiting for the others"
# The daemons serve the other nodes' commands until they are done too.
barrier exit "$run_wait" "" 10
exit "$status"
