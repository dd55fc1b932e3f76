#!/usr/bin/env bash
# Gradescope runs this once, as root and with network access, while it builds the autograder
# image. It installs Python >= 3.11 and the grader's pinned requirements in
# /opt/autograder-venv, readable by every user: each submission's sandbox runs as a user
# of its own and imports from it. Then only root may read the solution.
set -euo pipefail
source_dir=/autograder/source
export DEBIAN_FRONTEND=noninteractive
apt-get update
if python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    apt-get install -y --no-install-recommends python3-venv
    python=python3
else
    # An older base image (Ubuntu 22.04 ships Python 3.10): conda-forge's Python, under /opt.
    apt-get install -y --no-install-recommends wget ca-certificates
    wget -nv -O /tmp/miniforge.sh \
        "https://github.com/conda-forge/miniforge/releases/download/25.3.1-0/Miniforge3-Linux-$(uname -m).sh"
    bash /tmp/miniforge.sh -b -p /opt/miniforge3
    python=/opt/miniforge3/bin/python3
fi
"$python" -m venv /opt/autograder-venv
/opt/autograder-venv/bin/python -m pip install --no-cache-dir --upgrade pip
/opt/autograder-venv/bin/python -m pip install --no-cache-dir -r "$source_dir/requirements.txt"
chmod -R a+rX /opt/autograder-venv
chmod -R go-rwx "$source_dir/files/solutions"
