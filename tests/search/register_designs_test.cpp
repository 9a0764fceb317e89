// Designs with register tiles sized from the target: on AVX2, BLIS's
// 6 x 16 kernel for matmul 1024³, which no perfect tile of 1024 makes;
// every such design fits its registers and computes the right thing.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "ops/workload.h"
#include "search/block_info.h"
#include "search/register_designs.h"
#include "search/register_tile.h"
#include "search/sample.h"
#include "search/space.h"
#include "support/kernel_check.h"
#include "tir/schedule/block_util.h"
#include "tir/schedule/locate.h"
#include "tir/schedule/schedule.h"
#include "tir/transform/split_prepack.h"

