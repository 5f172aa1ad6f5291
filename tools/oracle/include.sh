# Sourced by the anchor scripts: the g++ include flags of CuTe's headers as installed by
# tools/oracle/setup.sh under $ORACLE (default /tmp/oracle).
ORACLE=${ORACLE:-/tmp/oracle}
CUTE_INC="-I $ORACLE/ext/nvidia/cuda_cccl/include -I $ORACLE/ext/cutlass_library/source/include -I $ORACLE/ext/nvidia/cuda_runtime/include -I $ORACLE/ext/nvidia/cuda_nvcc/include"
export ORACLE CUTE_INC
