# One fault at a time on one node or link, each named (after common.sh; `cargo xtask fabric-record`).

# 4. node1 drops only node3's RoCE v2 packets: the link between them.
fault node1 'ip saddr 192.0.2.4 udp dport 4791'
mesh_step link_blocked srun -N 4 --ntasks-per-node=1 "$fabric" mesh rc_example
fault node1

# 5. node3's netdev at MTU 9000, the others' at 1500.
n3=$(nic node3)
on node3 ip link set dev "$n3" mtu 9000
mesh_step mtu srun -N 4 --ntasks-per-node=1 "$fabric" mesh rc_example
on node3 ip link set dev "$n3" mtu 1500

# 6. Four ranks, and the fourth never starts (a launcher of its own, by
#    flags): reported at the 180 s deadline (an ssh session to a node
#    of an emulated fabric under load can take a minute to start), the
#    three others complete.
flags="--size 4 --coordinator node0 --wait 180 --out /tmp/mesh-flags"
for r in 1 2; do
	# shellcheck disable=SC2086 # $flags is several words on purpose.
	printf '%s\n' "$RDMA_LAB_SECRET" |
		timeout 600 ssh "node$r" "$fabric" mesh --rank "$r" $flags --secret-stdin rc_example \
			>"$out/never_started.rank$r.out" 2>&1 &
done
# shellcheck disable=SC2086
mesh_step never_started "$fabric" mesh --rank 0 $flags rc_example
wait

# 7. node1's only fault is one its doctor finds and rc_example does not
#    meet: `ulimit -l 64` without CAP_IPC_LOCK (apm's 1960 KiB would not
#    fit). Every pair passes; the diagnosis names node1 and the finding,
#    and the run fails on it. Beside it, node0's second NIC is down: the
#    rails name node0 as missing from rail 198.51.100.0/24.
n0=$(nic node0 1)
ip link set "$n0" down
flags="--size 4 --coordinator node0 --wait 180 --out /tmp/mesh-doctor"
for r in 1 2 3; do
	limit=""
	if [ "$r" = 1 ]; then
		limit="setpriv --bounding-set=-ipc_lock --inh-caps=-ipc_lock sh -c 'ulimit -l 64 && exec \"\$0\" \"\$@\"'"
	fi
	# shellcheck disable=SC2086 # $flags is several words on purpose.
	printf '%s\n' "$RDMA_LAB_SECRET" |
		timeout 600 ssh "node$r" "$limit $fabric mesh --rank $r $flags --secret-stdin rc_example" \
			>"$out/doctor_only.rank$r.out" 2>&1 &
done
# shellcheck disable=SC2086
mesh_step doctor_only "$fabric" mesh --rank 0 $flags rc_example
wait
ip link set "$n0" up
active node0 rxe1

# 8. node2 has the modules and no device: its rank joins to say so, and
#    the diagnosis names node2 and why at once, without waiting out
#    --wait (600 s here: the step's time shows it did not).
n2=$(nic node2)
n2b=$(nic node2 1)
on node2 rdma link delete rxe0
on node2 rdma link delete rxe1
began=$(date +%s)
mesh_step no_device srun -N 4 --ntasks-per-node=1 "$fabric" mesh --wait 600 rc_example
echo "took $(($(date +%s) - began)) s" >>"$out/no_device.out"
on node2 rdma link add rxe0 type rxe netdev "$n2"
on node2 rdma link add rxe1 type rxe netdev "$n2b"
active node2 rxe0
active node2 rxe1

# 9. A NIC on the wrong subnet: node3's second NIC has 203.0.113.4/24
#    instead of its address on rail 198.51.100.0/24. Every pair passes on
#    192.0.2.0/24; the rails name node3 rxe1 as on the wrong subnet, and
#    the run fails on it.
n3=$(nic node3 1)
on node3 ip addr del 198.51.100.4/24 dev "$n3"
on node3 ip addr add 203.0.113.4/24 dev "$n3"
mesh_step stray_rail srun -N 4 --ntasks-per-node=1 "$fabric" mesh rc_example
on node3 ip addr del 203.0.113.4/24 dev "$n3"
on node3 ip addr add 198.51.100.4/24 dev "$n3"

# 10. A lossy link: node1 and node3 each drop 3% of the other's RoCE v2
#     packets, at random, while perftest moves data between every pair
#     (node1 - node3 is one, node0 - node2 beside it, in the same round).
#     The hosts' loss counters name the link, and no host is blamed.
fault node1 'ip saddr 192.0.2.4 udp dport 4791 numgen random mod 100 lt 3'
fault node3 'ip saddr 192.0.2.2 udp dport 4791 numgen random mod 100 lt 3'
mesh_step lossy srun -N 4 --ntasks-per-node=1 "$fabric" mesh --perf rc_example --json "$out/lossy.json"
fault node1
fault node3
echo "fabric test: done"
