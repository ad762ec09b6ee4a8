/*
 * fuzz_sem_fixture.h - the small fixed semantic model of the semantic
 * layer's fuzz targets (fuzz_cube_query.c, fuzz_sem_sql.c): orders with a
 * categorical and a time dimension, two simple metrics and a derived one.
 */
#ifndef FLOE_FUZZ_SEM_FIXTURE_H
#define FLOE_FUZZ_SEM_FIXTURE_H

#include <stdlib.h>

#include "floe/semantic.h"

static const char model_yaml[] = "semantic_models:\n"
                                 "  - name: orders\n"
                                 "    model: ref('orders')\n"
                                 "    defaults:\n"
                                 "      agg_time_dimension: order_date\n"
                                 "    entities:\n"
                                 "      - name: order\n"
                                 "        type: primary\n"
                                 "        expr: order_id\n"
                                 "    dimensions:\n"
                                 "      - name: order_date\n"
                                 "        type: time\n"
                                 "        type_params:\n"
                                 "          time_granularity: day\n"
                                 "      - name: status\n"
                                 "        type: categorical\n"
                                 "    measures:\n"
                                 "      - name: gross\n"
                                 "        agg: sum\n"
                                 "        expr: gross_amount\n"
                                 "      - name: discount\n"
                                 "        agg: sum\n"
                                 "        expr: discount_applied\n"
                                 "metrics:\n"
                                 "  - name: gross_revenue\n"
                                 "    type: simple\n"
                                 "    type_params:\n"
                                 "      measure: gross\n"
                                 "  - name: discounts\n"
                                 "    type: simple\n"
                                 "    type_params:\n"
                                 "      measure: discount\n"
                                 "  - name: net\n"
                                 "    type: derived\n"
                                 "    type_params:\n"
                                 "      expr: gross_revenue - discounts\n"
                                 "      metrics:\n"
                                 "        - name: gross_revenue\n"
                                 "        - name: discounts\n";

static fl_sem_model *model(void)
{
    static fl_sem_model *m; /* loaded once per fuzzing process */
    if (!m) {
        fl_sem_file f = {"model.yml", model_yaml, sizeof model_yaml - 1};
        fl_error err = {0};
        if (fl_sem_model_load_files(&f, 1, &m, &err) != FL_OK)
            abort(); /* the harness's own model must load */
    }
    return m;
}

#endif
