# The healthy fabric, under Slurm and over ssh, then one host whose RoCE
# traffic is dropped (after common.sh).

# 1. The README's line, under Slurm: rc_example between every pair, and
#    mckey in pairs and in the multicast round, every link of both rails
#    (--rails: each node's second NIC, rxe1 on 198.51.100.0/24, at the
#    same time) measured with perftest (--perf): on the healthy fabric no
#    link is slow or lossy, on either rail.
step srun timeout 800 srun -N 4 --ntasks-per-node=1 "$lab" mesh --perf --rails rc_example mckey \
	--junit "$out/srun.xml" --json "$out/srun.json" --html "$out/srun.html"

# 2. The ssh launcher, from a private copy of the binaries on each node.
step ssh "$lab" mesh --ssh node0,node1,node2,node3 rc_example --html "$out/ssh.html"

# 3. node2 drops every RoCE v2 packet: the matrix names node2.
fault node2 'udp dport 4791'
step udp_blocked srun -N 4 --ntasks-per-node=1 "$lab" mesh rc_example
fault node2

# 4. node2's second NIC (rail 1) is slow: netem holds each packet it
#    sends 50 ms. With both its peers on the ring, its latency on rail 1
#    is several times the links' without node2 (or its bandwidth, which
#    the delay cuts too, a fraction), and node2 rxe1 is named on rail 1
#    only, as the NIC: rail 0 is clean. One pair at a time (--serial),
#    measurements only (perf_send_lat, with --perf's others): two rails
#    of two pairs at once on eight emulated guests made every link's
#    latency as long as the fault's, and the fault was missed once. (Under TCG with eight
#    guests on two cores a healthy link moves about 0.01 Gb/s, below what
#    tc can take away from RC without its ACK timeouts failing the pair:
#    the fault is one of latency; bandwidth is judged alike, see
#    lab/tests/mesh.rs.)
n2=$(nic node2 1)
timeout 30 ssh node2 tc qdisc add dev "$n2" root netem delay 50ms
step slow_host srun -N 4 --ntasks-per-node=1 "$lab" mesh --ring --serial --perf --rails perf_send_lat \
	--json "$out/slow_host.json"
timeout 30 ssh node2 tc qdisc del dev "$n2" root

echo "fabric test: done"
