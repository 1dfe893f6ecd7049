# The healthy fabric under Slurm, then one host whose RoCE traffic is
# dropped and one slow NIC (after common.sh; `cargo xtask fabric-record`).
# The ssh launcher's run is the fabric test's own (test.sh, step 4).

# 1. The README's line, under Slurm: rc_example between every pair, and
#    mckey in pairs and in the multicast round, every link of both rails
#    (--rails: each node's second NIC, rxe1 on 198.51.100.0/24, at the
#    same time) measured with perftest (--perf): on the healthy fabric no
#    link is slow or lossy, on either rail.
mesh_step srun timeout 800 srun -N 4 --ntasks-per-node=1 "$fabric" mesh --perf --rails rc_example mckey \
	--junit "$out/srun.xml" --json "$out/srun.json" --html "$out/srun.html"

# 2. node2 drops every RoCE v2 packet: the matrix names node2.
fault node2 'udp dport 4791'
mesh_step udp_blocked srun -N 4 --ntasks-per-node=1 "$fabric" mesh rc_example
fault node2

# 3. node2's second NIC (rail 1) is slow: netem lets it send 2 Mbit/s,
#    about a tenth of what a healthy emulated link moves here (0.01 to
#    0.03 Gb/s, eight TCG guests on two cores). With both its peers on
#    the ring, its bandwidth on rail 1 is that share of the links'
#    without node2, and node2 rxe1 is named on rail 1 only, as the NIC,
#    with its numbers: rail 0 is clean. One pair at a time (--serial),
#    measurements only (perf_write_bw, with --perf's others), so that
#    the healthy links' figures are not the CPU's share. --qp-timeout 20
#    (NCCL's default): at 2 Mbit/s one 64-packet message of ib_write_bw
#    takes 0.3 s, past perftest's own ACK timeout (67 ms), which would
#    resend it until the pair failed rather than measure it slow.
n2=$(nic node2 1)
on node2 tc qdisc add dev "$n2" root netem rate 2mbit
mesh_step slow_host srun -N 4 --ntasks-per-node=1 "$fabric" mesh --ring --serial --perf --qp-timeout 20 \
	--rails perf_write_bw --json "$out/slow_host.json"
on node2 tc qdisc del dev "$n2" root

echo "fabric test: done"
