# A baseline and a whole rail slower alike (after common.sh; `cargo
# xtask fabric-record baseline`): what only a baseline sees, since the
# rail's median moves with its links.

# 1. The healthy fabric measured on the ring, one pair at a time, both
#    rails, with the QP timeout the throttled run needs, and saved as
#    the baseline (--save-baseline: it passed).
mesh_step base_healthy srun -N 4 --ntasks-per-node=1 "$fabric" mesh --ring --serial --perf --qp-timeout 20 \
	--rails perf_write_bw --save-baseline "$out/baseline.json"

# 2. Every node's second NIC (rail 1) sends 3 Mbit/s (netem), a fifth
#    or so of what a healthy emulated link moves here: every link of
#    rail 1 slower alike, as a firmware update or PFC turned off on that
#    plane would make it. Against its median nothing is slow; against
#    the baseline rail 1 is named as the fabric, and rail 0 is clean.
for n in node0 node1 node2 node3; do
	on "$n" tc qdisc add dev "$(nic "$n" 1)" root netem rate 3mbit
done
mesh_step rail_throttled srun -N 4 --ntasks-per-node=1 "$fabric" mesh --ring --serial --perf --qp-timeout 20 \
	--rails perf_write_bw --baseline "$out/baseline.json" --json "$out/rail_throttled.json"
for n in node0 node1 node2 node3; do
	on "$n" tc qdisc del dev "$(nic "$n" 1)" root
done

echo "fabric test: done"
