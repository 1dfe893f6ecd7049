# The fabric test's script on node0 of four VMs (lab/tests/fabric.rs): it
# runs the mesh as an administrator would, under Slurm and over ssh, then
# makes one fault at a time on another node (over ssh, as root there) and
# runs it again. Each step's output and exit status go to OUT:
#
#   sh node0.sh OUT BIN
#
# OUT is node0's rwdir, BIN a copy of rdma-lab and the example binaries.
# Every program is bounded by `timeout`.
set -u
out=$1 bin=$2
lab=$bin/rdma-lab
# The ranks' results go under the working directory (./rdma-lab/mesh):
# /tmp, on every node, as srun starts each task where srun was started.
cd /tmp || exit 1
RDMA_LAB_SECRET=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
export RDMA_LAB_SECRET

# step NAME CMD...: runs CMD, bounded, into OUT/NAME.{out,status}.
step() {
	name=$1
	shift
	echo "fabric test: $name"
	timeout 900 "$@" >"$out/$name.out" 2>&1
	echo $? >"$out/$name.status"
}

# fault NODE RULE: node NODE drops what RULE (an nftables match) names on
# its way in; `fault NODE` removes it.
fault() {
	if [ $# -eq 2 ]; then
		printf 'table inet fabric_fault {\n chain input {\n  type filter hook input priority 0; policy accept;\n  %s drop\n }\n}\n' "$2" |
			timeout 30 ssh "$1" nft -f -
	else
		timeout 30 ssh "$1" nft delete table inet fabric_fault
	fi
}

# The netdev with a fabric address, on node $1.
nic() {
	# shellcheck disable=SC2016 # awk's own $2 and $4.
	timeout 30 ssh "$1" ip -o -4 addr show | awk '$4 ~ /^192\.0\.2\./ { print $2; exit }'
}

# 1. The README's line, under Slurm: rc_example between every pair, and
#    mckey in pairs and in the multicast round.
step srun timeout 800 srun -N 4 --ntasks-per-node=1 "$lab" mesh rc_example mckey \
	--junit "$out/srun.xml" --json "$out/srun.json" --html "$out/srun.html"

# 2. The ssh launcher, from a private copy of the binaries on each node.
step ssh "$lab" mesh --ssh node0,node1,node2,node3 rc_example --html "$out/ssh.html"

# 3. node2 drops every RoCE v2 packet: the matrix names node2.
fault node2 'udp dport 4791'
step udp_blocked srun -N 4 --ntasks-per-node=1 "$lab" mesh rc_example
fault node2

# 4. node1 drops only node3's RoCE v2 packets: the link between them.
fault node1 'ip saddr 192.0.2.4 udp dport 4791'
step link_blocked srun -N 4 --ntasks-per-node=1 "$lab" mesh rc_example
fault node1

# 5. node3's netdev at MTU 9000, the others' at 1500.
n3=$(nic node3)
timeout 30 ssh node3 ip link set dev "$n3" mtu 9000
step mtu srun -N 4 --ntasks-per-node=1 "$lab" mesh rc_example
timeout 30 ssh node3 ip link set dev "$n3" mtu 1500

# 6. Four ranks, and the fourth never starts (a launcher of its own, by
#    flags): reported at the 30 s deadline, the three others complete.
flags="--size 4 --coordinator node0 --wait 30 --out /tmp/mesh-flags"
for r in 1 2; do
	# shellcheck disable=SC2086 # $flags is several words on purpose.
	printf '%s\n' "$RDMA_LAB_SECRET" |
		timeout 600 ssh "node$r" "$lab" mesh --rank "$r" $flags --secret-stdin rc_example \
			>"$out/never_started.rank$r.out" 2>&1 &
done
# shellcheck disable=SC2086
step never_started "$lab" mesh --rank 0 $flags rc_example
wait

# 7. node1's only fault is one its doctor finds and rc_example does not
#    meet: `ulimit -l 64` without CAP_IPC_LOCK (apm's 1960 KiB would not
#    fit). Every pair passes; the diagnosis names node1 and the finding,
#    and the run fails on it.
flags="--size 4 --coordinator node0 --wait 60 --out /tmp/mesh-doctor"
for r in 1 2 3; do
	limit=""
	if [ "$r" = 1 ]; then
		limit="setpriv --bounding-set=-ipc_lock --inh-caps=-ipc_lock sh -c 'ulimit -l 64 && exec \"\$0\" \"\$@\"'"
	fi
	# shellcheck disable=SC2086 # $flags is several words on purpose.
	printf '%s\n' "$RDMA_LAB_SECRET" |
		timeout 600 ssh "node$r" "$limit $lab mesh --rank $r $flags --secret-stdin rc_example" \
			>"$out/doctor_only.rank$r.out" 2>&1 &
done
# shellcheck disable=SC2086
step doctor_only "$lab" mesh --rank 0 $flags rc_example
wait

# 8. node2 has the modules and no device: its rank joins to say so, and
#    the diagnosis names node2 and why at once, without waiting out
#    --wait (600 s here: the step's time shows it did not).
n2=$(nic node2)
timeout 60 ssh node2 rdma link delete rxe0
began=$(date +%s)
step no_device srun -N 4 --ntasks-per-node=1 "$lab" mesh --wait 600 rc_example
echo "took $(($(date +%s) - began)) s" >>"$out/no_device.out"
timeout 60 ssh node2 rdma link add rxe0 type rxe netdev "$n2"
echo "fabric test: done"
