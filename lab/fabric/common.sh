# The fabric's scripts on node0 of four VMs: this part, then `test.sh`
# (the fabric test, lab/tests/fabric.rs) or `record-healthy.sh` and
# `record-faults.sh` (`cargo xtask fabric-record`, which keeps each mesh
# run's record in lab/tests/data/fabric/). They run the mesh as an
# administrator would, under Slurm and over ssh, and make faults on
# nodes (over ssh, as root there) and run it again. Each step's output,
# exit status and the mesh's record go to OUT:
#
#   sh SCRIPT OUT BIN
#
# OUT is node0's rwdir, BIN a copy of rdma-fabric and the example binaries.
# Every program is bounded by `timeout`; an ssh session into an emulated
# node under load can take a minute to start, so each has two.
set -u
out=$1 bin=$2
fabric=$bin/rdma-fabric
# The ranks' results go under the working directory (./rdma-fabric-results/mesh):
# /tmp, on every node, as srun starts each task where srun was started.
cd /tmp || exit 1
RDMA_LAB_SECRET=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
export RDMA_LAB_SECRET

# on NODE CMD...: CMD on NODE as root, over one ssh connection a node
# kept for the script (ControlMaster): a fresh login is a key exchange
# and a PAM session, seconds each under emulation, where a session on
# the open connection is a fraction of one. Where the connection could
# not be made, ssh logs in afresh. The mesh's --ssh launcher does not
# use these connections: it logs in as an administrator's would.
ctl=/run/fabric-ssh-%C
for n in node0 node1 node2 node3; do
	timeout 120 ssh -o ControlPath="$ctl" -o ControlMaster=yes -o ControlPersist=yes -fN "$n" \
		>/dev/null 2>&1 &
done
wait
on() {
	timeout 120 ssh -o ControlPath="$ctl" "$@"
}

# step NAME CMD...: runs CMD, bounded, into OUT/NAME.{out,status}.
step() {
	name=$1
	shift
	echo "fabric test: $name"
	timeout 900 "$@" >"$out/$name.out" 2>&1
	echo $? >"$out/$name.status"
}

# mesh_step NAME CMD...: `step`, with the mesh's record of the run (rank
# 0's: every host's report, as the judge took it) in OUT/NAME.record.json.
mesh_step() {
	name=$1
	shift
	step "$name" "$@" --record "$out/$name.record.json"
}

# fault NODE RULE: node NODE drops what RULE (an nftables match) names on
# its way in; `fault NODE` removes it. A fault not made is a line in
# node0's output (the step's diagnosis then misses it).
fault() {
	if [ $# -eq 2 ]; then
		printf 'table inet fabric_fault {\n chain input {\n  type filter hook input priority 0; policy accept;\n  %s drop\n }\n}\n' "$2" |
			on "$1" nft -f - || echo "fabric test: fault on $1 not made" >&2
	else
		on "$1" nft delete table inet fabric_fault
	fi
}

# The netdev with a fabric address on node $1's rail $2 (0, the default:
# 192.0.2.0/24; 1: 198.51.100.0/24); a line in node0's output when there
# is none, since a fault then is not made.
nic() {
	net='192\.0\.2\.'
	[ "${2:-0}" = 1 ] && net='198\.51\.100\.'
	# shellcheck disable=SC2016 # awk's own $2 and $4.
	found=$(on "$1" ip -o -4 addr show | awk -v net="^$net" '$4 ~ net { print $2; exit }')
	[ -n "$found" ] || echo "fabric test: no netdev on rail ${2:-0} found on $1" >&2
	echo "$found"
}

# Waits until node $1's device $2 is ACTIVE again (after its link came up).
# ssh hands the remote shell one line, so the device's name goes into it:
# only a name of letters, digits and underscores does.
active() {
	case $2 in
	'' | *[!A-Za-z0-9_]*)
		echo "fabric test: no such device name: $2" >&2
		return 1
		;;
	esac
	on "$1" "until rdma link show $2/1 | grep -q 'state ACTIVE'; do sleep 1; done"
}

