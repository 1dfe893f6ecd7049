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

echo "fabric test: done"
