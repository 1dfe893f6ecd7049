# The fabric test (lab/tests/fabric.rs, after common.sh): what only VMs
# can show, in as few mesh runs as show it. The diagnosis of every fault
# is also replayed in the host tests from the records of real runs
# (lab/tests/recorded.rs); here the faults are made on a real kernel
# stack, several in one run as a real fabric has them, and each must show
# in what the hosts report and be named, and nothing else.

# 1. The README's line, under Slurm: rc_example between neighbours, and
#    mckey in pairs and in the multicast round, on both rails (--rails:
#    each node's second NIC, rxe1 on 198.51.100.0/24, at the same time),
#    with the reports a CI reads. On the ring (two rounds, not three):
#    the all-pairs rounds run over ssh in step 3. Not measured: perftest
#    and the counters run on both rails in the next step, whose healthy
#    links must be named nothing, and the judges' verdict on a healthy
#    fabric measured all-pairs is checked on its record (srun in
#    lab/tests/recorded.rs).
#    node1's devices are made in the other order first (rxe0 on its rail-1
#    NIC, rxe1 on its rail-0 NIC), as a node's NICs are named after a
#    card is replaced: a healthy fabric, since rails are subnets, which
#    the mesh must say and pass. They stay so for every step.
n1a=$(nic node1 0) n1b=$(nic node1 1)
on node1 rdma link delete rxe0
on node1 rdma link delete rxe1
on node1 rdma link add rxe0 type rxe netdev "$n1b"
on node1 rdma link add rxe1 type rxe netdev "$n1a"
active node1 rxe0
active node1 rxe1
mesh_step srun timeout 800 srun -N 4 --ntasks-per-node=1 "$fabric" mesh --ring --rails rc_example mckey \
	--junit "$out/srun.xml" --json "$out/srun.json" --html "$out/srun.html"

# 2. Two faults at once, as the issue of a real fabric: a throttled NIC
#    and a lossy link, on different rails.
#    - node2's second NIC (rail 1) sends 2 Mbit/s (netem), about a tenth
#      of what a healthy emulated link moves here;
#    - node0 and node1 each drop 3% of the other's RoCE v2 data packets
#      (over 256 bytes) on rail 0, at random, while perftest moves data
#      between them. Not the ACKs and NAKs: a lost NAK waits out the QP
#      timeout, 4 s at 20, which would stall the 2 s measurement for
#      good and show the link dead slow, not lossy (the lossy link's
#      record, every packet at risk under perftest's own timeout, is
#      replayed in the host tests).
#    On the ring, one pair at a time (--serial: the healthy links'
#    figures are not the CPU's share), every link of both rails measured,
#    with the QP timeout of NCCL's default (--qp-timeout 20): at 2 Mbit/s
#    one 64-packet message takes 0.3 s, past perftest's own ACK timeout
#    (67 ms), which would resend it until the pair failed rather than
#    measure it slow. node2 rxe1 is named on rail 1 as the NIC (rail 0
#    clean for it); the counters name node0 - node1 lossy on rail 0 (it
#    may measure slow too); no host is blamed.
n2=$(nic node2 1)
on node2 tc qdisc add dev "$n2" root netem rate 2mbit
fault node0 'ip saddr 192.0.2.2 udp dport 4791 meta length > 256 numgen random mod 100 lt 3'
fault node1 'ip saddr 192.0.2.1 udp dport 4791 meta length > 256 numgen random mod 100 lt 3'
mesh_step slow_and_lossy srun -N 4 --ntasks-per-node=1 "$fabric" mesh --ring --serial --perf --qp-timeout 20 \
	--rails perf_write_bw --json "$out/slow_and_lossy.json"
on node2 tc qdisc del dev "$n2" root
fault node0
fault node1

# 3. Three faults at once, over the ssh launcher from a private copy of
#    the binaries on each node, without --rails (rail 0 alone: each
#    host's port on the coordinator's subnet, node1's rxe1, which the
#    mesh says): node1 drops every RoCE v2 packet of
#    node3's (a blocked link); node2 has the modules and no device (its
#    rank joins to say so, and is named at once, without waiting out
#    --wait: 600 s here, the step's time shows it did not); node3's
#    second NIC has 203.0.113.4/24 instead of its address on rail
#    198.51.100.0/24 (a NIC on the wrong subnet, which its ports tell
#    without --rails).
fault node1 'ip saddr 192.0.2.4 udp dport 4791'
on node2 rdma link delete rxe0
on node2 rdma link delete rxe1
n3=$(nic node3 1)
on node3 ip addr del 198.51.100.4/24 dev "$n3"
on node3 ip addr add 203.0.113.4/24 dev "$n3"
began=$(date +%s)
mesh_step blocked_missing_and_stray "$fabric" mesh --ssh node0,node1,node2,node3 --wait 600 rc_example \
	--html "$out/blocked_missing_and_stray.html" --out "$out/blocked_missing_and_stray"
echo "took $(($(date +%s) - began)) s" >>"$out/blocked_missing_and_stray.out"

# 4. node3 is a guest of two NUMA nodes: its rail-0 NIC on node 0's PCIe
#    expander, its rail-1 NIC on node 1's (step 2 ran each NIC's
#    measurements on that node's CPU, which its record shows from
#    perftest's own process), and a spare NIC on the root bus, on no
#    node. With an address and Soft-RoCE on the spare, the doctor names
#    it, and its rails lines give each NIC's node.
spare=$(on node3 "ip -o link | grep -i 52:54:00:12:3f:01 | cut -d: -f2 | tr -d ' '")
case $spare in
'' | *[!A-Za-z0-9_]*) echo "fabric test: no spare NIC on node3: $spare" >&2 ;;
*)
	on node3 "ip link set $spare up && ip addr add 198.51.100.14/24 dev $spare && rdma link add rxe2 type rxe netdev $spare"
	active node3 rxe2
	;;
esac
step doctor_numa srun -N 1 -w node3 "$fabric" doctor
echo "fabric test: done"
