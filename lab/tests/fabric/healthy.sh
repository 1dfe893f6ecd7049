# The healthy fabric, under Slurm and over ssh, then one host whose RoCE
# traffic is dropped (after common.sh).

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

# 4. Every link measured with perftest on the healthy fabric: no link is
#    named slow or lossy.
step perf srun -N 4 --ntasks-per-node=1 "$lab" mesh --perf rc_example --json "$out/perf.json"

# 5. node2's NIC sends at a tenth of its speed (tbf on its egress): with
#    every peer, one way of the link is slow, and node2 is named.
n2=$(nic node2)
timeout 30 ssh node2 tc qdisc add dev "$n2" root tbf rate 20mbit burst 64kb latency 500ms
step slow_host srun -N 4 --ntasks-per-node=1 "$lab" mesh --perf rc_example
timeout 30 ssh node2 tc qdisc del dev "$n2" root

echo "fabric test: done"
