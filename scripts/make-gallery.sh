#!/usr/bin/env bash
# Regenerates the gallery of docs/examples.md: for each example scene in configs/, its last frame
# (docs/gallery/<scene>.png, `soma view --snapshot`) and a plot of its CSV series
# (docs/gallery/<scene>-plot.png, `soma plot`), both 640x400.
#   scripts/make-gallery.sh                 # every scene (about 2 minutes on one core)
#   scripts/make-gallery.sh knot parachute  # these scenes only
# Needs the build (build/bin/soma, or SOMA=path), Chromium and python3-matplotlib. Runs go to
# /tmp/soma-gallery/<scene>. Where python3-pil is installed the PNGs are reduced to 256 colours
# (3x smaller, no visible change), so each stays under 100 KB.
set -euo pipefail
set -f  # the column patterns below are globs for `soma plot`, not for the shell
cd "$(dirname "$0")/.."
soma=${SOMA:-build/bin/soma}
runs=${SOMA_GALLERY_RUNS:-/tmp/soma-gallery}
out=docs/gallery
mkdir -p "$out" "$runs"

# The columns worth a look in each scene's CSV (names or globs, see `soma plot --help`).
declare -A columns=(
  [cantilever]="beam.node50.z energy.*"
  [pneunet]="actuator.node50.x actuator.node50.z"
  [euler_buckling]="column.node20.*"
  [rod_network]="north.node0.z energy.kinetic"
  [cantilever_plate]="plate.node20.z plate.node106.z"
  [manta_ray]="manta.node10.z manta.node65.z manta.node130.z"
  [parachute]="payload.node0.z payload.node0.vz"
  [double_pendulum]="bar2.node1.x bar2.node1.z energy.total"
  [servo_arm]="*_servo.coordinate *_servo.effort"
  [gripper]="rod.node19.z grip.normal_force grip.friction_force"
  [urdf_arm]="shoulder_servo.coordinate finger_servo.coordinate"
  [rod_in_body]="hub.wz blade_a.node15.z"
  [box_on_floor]="cube.node1.z capsule.node1.z wedge.node1.z"
  [heavy_stack]="box*.node0.z slider.node0.x"
  [sheet_on_rod]="sheet.node108.z sheet.node101.z"
  [entanglement_gripper]="finger0.node59.z imc_contact.active_pairs"
  [knot]="rope.node1.x rope.node93.x energy.imc_contact"
  [crumple]="sheet.node85.z sheet.node96.z"
  [rod_on_sphere]="sphere.node0.z imc_contact.normal_force"
  [cable_manipulator]="manipulator.node6.x manipulator.node6.y"
  [contact_scenario]="manipulator.node11.x manipulator.node11.y"
  [fin_ray_finger]="finger.node38.x finger.node38.z"
  [manipulator_with_payload]="manipulator.node6.x rope.node15.z"
  [parallel_robot]="robot.node8.x robot.node8.z"
  [serial_robot]="robot.node20.x robot.node20.z"
  [underwater_vehicle]="vehicle.node1.x energy.kinetic"
)

shrink() {  # 256-colour PNG when PIL is there
  /usr/bin/python3 - "$@" <<'EOF' 2>/dev/null || true
import sys
from PIL import Image
for path in sys.argv[1:]:
    Image.open(path).convert("RGB").quantize(256, method=Image.Quantize.MEDIANCUT).save(path, optimize=True)
EOF
}

wanted=("$@")
for scene_file in $(find configs -name '*.yaml' | sort); do
  name=$(basename "$scene_file" .yaml)
  if [ ${#wanted[@]} -gt 0 ] && [[ ! " ${wanted[*]} " == *" $name "* ]]; then continue; fi
  [ -n "${columns[$name]+set}" ] || { echo "$name: no columns chosen in $0, skipped" >&2; continue; }
  run="$runs/$name"
  rm -rf "$run"
  start=$SECONDS
  "$soma" run "$scene_file" --quiet --output "$run" > "$runs/$name.log" 2>&1
  csv=$(find "$run" -maxdepth 1 -name '*.csv' | sort | head -1)
  read -ra cols <<< "${columns[$name]}"
  "$soma" view "$run" --snapshot "$out/$name.png" --size 640x400 > /dev/null
  "$soma" plot "$csv" "${cols[@]}" --size 640x400 -o "$out/$name-plot.png" > /dev/null
  shrink "$out/$name.png" "$out/$name-plot.png"
  echo "$name: $((SECONDS - start)) s, $(du -k "$out/$name.png" | cut -f1) kB + $(du -k "$out/$name-plot.png" | cut -f1) kB"
done
