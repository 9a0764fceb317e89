// The farm's tables on PostgreSQL, beside the tuning records in the schema
// "kiln" (tuning_logs/postgres_schema.h): the job queue, each job's log,
// and the runner registry, versioned on their own ("farm_schema_version"
// in kiln.meta) so that a tuning database without a farm never carries
// them.
#pragma once

#include "tuning_logs/pg_connection.h"

namespace kiln::farm {

// Makes c's database a tuning database with the farm's tables, creating or
// migrating what is missing. Throws kiln::Error naming the database.
void prepare_farm_schema(tuning::PgConnection& c);

}  // namespace kiln::farm
