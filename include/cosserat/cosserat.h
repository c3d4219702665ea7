/* cosserat — Cosserat rod simulation. Umbrella header. */
#ifndef COSSERAT_H
#define COSSERAT_H
#include "cosserat/base.h"
#include "cosserat/math.h"
#include "cosserat/model.h"
#include "cosserat/mixed.h"
#include "cosserat/sim.h"
#include "cosserat/dynamics.h"
#include "cosserat/statics.h"
#include "cosserat/assembly.h"
#include "cosserat/scenario.h"
#include "cosserat/output.h"
#include "cosserat/warnings.h"
#endif
