-- query: categorical, one row per respondent
SELECT
  `t3`.`value`,
  `t3`.`status`,
  `t3`.`rows`,
  CASE WHEN `t3`.`status` = 'kept' THEN `t3`.`rows` ELSE CAST(NULL AS INT64) END AS `count`,
  CAST(NULL AS INT64) AS `users`
FROM (
  SELECT
    `t2`.`value`,
    `t2`.`status`,
    COUNT(*) AS `rows`
  FROM (
    SELECT
      CASE
        WHEN COALESCE(`t1`.`status`, 'kept') IN ('kept', 'out_of_domain')
        THEN `t1`.`value`
        ELSE CAST(NULL AS STRING)
      END AS `value`,
      COALESCE(`t1`.`status`, 'kept') AS `status`
    FROM (
      SELECT
        TRIM(`t0`.`category`, ' ') AS `value`,
        CASE
          WHEN `t0`.`category` IS NULL
          THEN 'null'
          WHEN TRIM(`t0`.`category`, ' ') = ''
          THEN 'empty'
          ELSE CAST(NULL AS STRING)
        END AS `status`
      FROM `events` AS `t0`
    ) AS `t1`
  ) AS `t2`
  GROUP BY
    1,
    2
) AS `t3`;

-- query: categorical, first per user
WITH `t2` AS (
  SELECT
    `t1`.`value`,
    COALESCE(
      COALESCE(
        `t1`.`status`,
        CASE
          WHEN (
            `t1`.`u` IS NULL
          ) OR (
            `t1`.`u` = ''
          )
          THEN 'missing_user'
          ELSE CAST(NULL AS STRING)
        END
      ),
      'kept'
    ) AS `status`,
    `t1`.`u`,
    `t1`.`o`
  FROM (
    SELECT
      TRIM(`t0`.`category`, ' ') AS `value`,
      CASE
        WHEN `t0`.`category` IS NULL
        THEN 'null'
        WHEN TRIM(`t0`.`category`, ' ') = ''
        THEN 'empty'
        ELSE CAST(NULL AS STRING)
      END AS `status`,
      TRIM(`t0`.`user_id`, ' ') AS `u`,
      `t0`.`event_time` AS `o`
    FROM `events` AS `t0`
  ) AS `t1`
)
SELECT
  `t7`.`value`,
  `t7`.`status`,
  `t7`.`rows`,
  CASE
    WHEN `t7`.`status` = 'kept'
    THEN COALESCE(`t11`.`count`, 0)
    ELSE CAST(NULL AS INT64)
  END AS `count`,
  CASE
    WHEN `t7`.`status` = 'kept'
    THEN COALESCE(`t11`.`users`, 0)
    ELSE CAST(NULL AS INT64)
  END AS `users`
FROM (
  SELECT
    `t4`.`value`,
    `t4`.`status`,
    COUNT(*) AS `rows`
  FROM (
    SELECT
      CASE
        WHEN `t3`.`status` IN ('kept', 'out_of_domain')
        THEN `t3`.`value`
        ELSE CAST(NULL AS STRING)
      END AS `value`,
      `t3`.`status`,
      `t3`.`u`,
      `t3`.`o`
    FROM `t2` AS `t3`
  ) AS `t4`
  GROUP BY
    1,
    2
) AS `t7`
LEFT OUTER JOIN (
  SELECT
    `t9`.`value`,
    COUNT(*) AS `count`,
    SUM(CAST(`t9`.`k` = 1 AS INT64)) AS `users`
  FROM (
    SELECT
      *
    FROM (
      SELECT
        `t5`.`value`,
        (
          ROW_NUMBER() OVER (
            PARTITION BY `t5`.`u`
            ORDER BY `t5`.`o` IS NULL ASC, `t5`.`o` ASC, `t5`.`value` ASC
          ) - 1
        ) + 1 AS `k`
      FROM (
        SELECT
          CASE
            WHEN `t3`.`status` IN ('kept', 'out_of_domain')
            THEN `t3`.`value`
            ELSE CAST(NULL AS STRING)
          END AS `value`,
          `t3`.`status`,
          `t3`.`u`,
          `t3`.`o`
        FROM `t2` AS `t3`
        WHERE
          `t3`.`status` = 'kept'
      ) AS `t5`
    ) AS `t8`
    WHERE
      `t8`.`k` = 1
  ) AS `t9`
  GROUP BY
    1
) AS `t11`
  ON `t7`.`value` = `t11`.`value` AND `t7`.`status` = 'kept';

-- query: categorical, mode per user, a declared domain
WITH `t3` AS (
  SELECT
    `t2`.`value`,
    CASE
      WHEN (
        `t2`.`status` = 'kept'
      )
      AND NOT (
        `t2`.`value` IN ('news', 'social', 'video')
      )
      THEN 'out_of_domain'
      ELSE `t2`.`status`
    END AS `status`,
    `t2`.`u`,
    `t2`.`o`
  FROM (
    SELECT
      `t1`.`value`,
      COALESCE(
        COALESCE(
          `t1`.`status`,
          CASE
            WHEN (
              `t1`.`u` IS NULL
            ) OR (
              `t1`.`u` = ''
            )
            THEN 'missing_user'
            ELSE CAST(NULL AS STRING)
          END
        ),
        'kept'
      ) AS `status`,
      `t1`.`u`,
      `t1`.`o`
    FROM (
      SELECT
        TRIM(`t0`.`category`, ' ') AS `value`,
        CASE
          WHEN `t0`.`category` IS NULL
          THEN 'null'
          WHEN TRIM(`t0`.`category`, ' ') = ''
          THEN 'empty'
          ELSE CAST(NULL AS STRING)
        END AS `status`,
        TRIM(`t0`.`user_id`, ' ') AS `u`,
        `t0`.`event_time` AS `o`
      FROM `events` AS `t0`
    ) AS `t1`
  ) AS `t2`
)
SELECT
  `t13`.`value`,
  `t13`.`status`,
  `t13`.`rows`,
  CASE
    WHEN `t13`.`status` = 'kept'
    THEN COALESCE(`t15`.`count`, 0)
    ELSE CAST(NULL AS INT64)
  END AS `count`,
  CASE
    WHEN `t13`.`status` = 'kept'
    THEN COALESCE(`t15`.`users`, 0)
    ELSE CAST(NULL AS INT64)
  END AS `users`
FROM (
  SELECT
    `t10`.`value`,
    `t10`.`status`,
    SUM(`t10`.`rows`) AS `rows`
  FROM (
    SELECT
      CASE
        WHEN (
          `t7`.`status` = 'out_of_domain'
        )
        AND (
          (
            (
              ROW_NUMBER() OVER (PARTITION BY `t7`.`status` ORDER BY `t7`.`rows` DESC, `t7`.`value` ASC) - 1
            ) + 1
          ) > 5
        )
        THEN CAST(NULL AS STRING)
        ELSE `t7`.`value`
      END AS `value`,
      `t7`.`status`,
      `t7`.`rows`
    FROM (
      SELECT
        `t5`.`value`,
        `t5`.`status`,
        COUNT(*) AS `rows`
      FROM (
        SELECT
          CASE
            WHEN `t4`.`status` IN ('kept', 'out_of_domain')
            THEN `t4`.`value`
            ELSE CAST(NULL AS STRING)
          END AS `value`,
          `t4`.`status`,
          `t4`.`u`,
          `t4`.`o`
        FROM `t3` AS `t4`
      ) AS `t5`
      GROUP BY
        1,
        2
    ) AS `t7`
  ) AS `t10`
  GROUP BY
    1,
    2
) AS `t13`
LEFT OUTER JOIN (
  SELECT
    `t11`.`value`,
    COUNT(*) AS `count`,
    SUM(CAST(`t11`.`k` = 1 AS INT64)) AS `users`
  FROM (
    SELECT
      *
    FROM (
      SELECT
        `t8`.`value`,
        (
          ROW_NUMBER() OVER (
            PARTITION BY `t8`.`u`
            ORDER BY `t8`.`c` DESC, `t8`.`f` IS NULL ASC, `t8`.`f` ASC, `t8`.`value` ASC
          ) - 1
        ) + 1 AS `k`
      FROM (
        SELECT
          `t6`.`u`,
          `t6`.`value`,
          COUNT(*) AS `c`,
          MIN(`t6`.`o`) AS `f`
        FROM (
          SELECT
            CASE
              WHEN `t4`.`status` IN ('kept', 'out_of_domain')
              THEN `t4`.`value`
              ELSE CAST(NULL AS STRING)
            END AS `value`,
            `t4`.`status`,
            `t4`.`u`,
            `t4`.`o`
          FROM `t3` AS `t4`
          WHERE
            `t4`.`status` = 'kept'
        ) AS `t6`
        GROUP BY
          1,
          2
      ) AS `t8`
    ) AS `t9`
    WHERE
      `t9`.`k` <= 1
  ) AS `t11`
  GROUP BY
    1
) AS `t15`
  ON `t13`.`value` = `t15`.`value` AND `t13`.`status` = 'kept';

-- query: categorical, distinct:3 per user
WITH `t2` AS (
  SELECT
    `t1`.`value`,
    COALESCE(
      COALESCE(
        `t1`.`status`,
        CASE
          WHEN (
            `t1`.`u` IS NULL
          ) OR (
            `t1`.`u` = ''
          )
          THEN 'missing_user'
          ELSE CAST(NULL AS STRING)
        END
      ),
      'kept'
    ) AS `status`,
    `t1`.`u`,
    `t1`.`o`
  FROM (
    SELECT
      TRIM(`t0`.`category`, ' ') AS `value`,
      CASE
        WHEN `t0`.`category` IS NULL
        THEN 'null'
        WHEN TRIM(`t0`.`category`, ' ') = ''
        THEN 'empty'
        ELSE CAST(NULL AS STRING)
      END AS `status`,
      TRIM(`t0`.`user_id`, ' ') AS `u`,
      `t0`.`event_time` AS `o`
    FROM `events` AS `t0`
  ) AS `t1`
)
SELECT
  `t7`.`value`,
  `t7`.`status`,
  `t7`.`rows`,
  CASE
    WHEN `t7`.`status` = 'kept'
    THEN COALESCE(`t12`.`count`, 0)
    ELSE CAST(NULL AS INT64)
  END AS `count`,
  CASE
    WHEN `t7`.`status` = 'kept'
    THEN COALESCE(`t12`.`users`, 0)
    ELSE CAST(NULL AS INT64)
  END AS `users`
FROM (
  SELECT
    `t4`.`value`,
    `t4`.`status`,
    COUNT(*) AS `rows`
  FROM (
    SELECT
      CASE
        WHEN `t3`.`status` IN ('kept', 'out_of_domain')
        THEN `t3`.`value`
        ELSE CAST(NULL AS STRING)
      END AS `value`,
      `t3`.`status`,
      `t3`.`u`,
      `t3`.`o`
    FROM `t2` AS `t3`
  ) AS `t4`
  GROUP BY
    1,
    2
) AS `t7`
LEFT OUTER JOIN (
  SELECT
    `t10`.`value`,
    COUNT(*) AS `count`,
    SUM(CAST(`t10`.`k` = 1 AS INT64)) AS `users`
  FROM (
    SELECT
      *
    FROM (
      SELECT
        `t8`.`value`,
        (
          ROW_NUMBER() OVER (
            PARTITION BY `t8`.`u`
            ORDER BY `t8`.`f` IS NULL ASC, `t8`.`f` ASC, `t8`.`value` ASC
          ) - 1
        ) + 1 AS `k`
      FROM (
        SELECT
          `t5`.`u`,
          `t5`.`value`,
          COUNT(*) AS `c`,
          MIN(`t5`.`o`) AS `f`
        FROM (
          SELECT
            CASE
              WHEN `t3`.`status` IN ('kept', 'out_of_domain')
              THEN `t3`.`value`
              ELSE CAST(NULL AS STRING)
            END AS `value`,
            `t3`.`status`,
            `t3`.`u`,
            `t3`.`o`
          FROM `t2` AS `t3`
          WHERE
            `t3`.`status` = 'kept'
        ) AS `t5`
        GROUP BY
          1,
          2
      ) AS `t8`
    ) AS `t9`
    WHERE
      `t9`.`k` <= 3
  ) AS `t10`
  GROUP BY
    1
) AS `t12`
  ON `t7`.`value` = `t12`.`value` AND `t7`.`status` = 'kept';

-- query: numeric, 20 bins over [0, 100]
SELECT
  `t6`.`value`,
  `t6`.`status`,
  `t6`.`rows`,
  CASE WHEN `t6`.`status` = 'kept' THEN `t6`.`rows` ELSE CAST(NULL AS INT64) END AS `count`,
  CAST(NULL AS INT64) AS `users`
FROM (
  SELECT
    `t5`.`value`,
    `t5`.`status`,
    COUNT(*) AS `rows`
  FROM (
    SELECT
      CASE
        WHEN COALESCE(`t4`.`status`, 'kept') IN ('kept', 'out_of_domain')
        THEN `t4`.`b0`
        ELSE CAST(NULL AS INT64)
      END AS `value`,
      COALESCE(`t4`.`status`, 'kept') AS `status`
    FROM (
      SELECT
        `t3`.`x`,
        `t3`.`status`,
        `t3`.`g0`,
        `t3`.`d0`,
        `t3`.`d0` + CAST((
          `t3`.`x` >= (
            (
              CAST(`t3`.`d0` + 1 AS FLOAT64) * 5.0
            ) + 0.0
          )
        )
        AND (
          `t3`.`d0` <> 19
        ) AS INT64) AS `b0`
      FROM (
        SELECT
          `t2`.`x`,
          `t2`.`status`,
          `t2`.`g0`,
          `t2`.`g0` - CAST(`t2`.`x` < (
            (
              CAST(`t2`.`g0` AS FLOAT64) * 5.0
            ) + 0.0
          ) AS INT64) AS `d0`
        FROM (
          SELECT
            `t1`.`x`,
            `t1`.`status`,
            CASE
              WHEN `t1`.`status` IS NULL
              THEN LEAST(CAST(FLOOR(ieee_divide(`t1`.`x` - 0.0, 100.0) * 20) AS INT64), 19)
              ELSE CAST(NULL AS INT64)
            END AS `g0`
          FROM (
            SELECT
              `t0`.`amount` AS `x`,
              COALESCE(
                CASE
                  WHEN (
                    `t0`.`amount` IS NULL
                  ) OR IS_NAN(`t0`.`amount`)
                  THEN 'null'
                  ELSE CAST(NULL AS STRING)
                END,
                CASE
                  WHEN NOT (
                    `t0`.`amount` BETWEEN 0.0 AND 100.0
                  )
                  THEN 'out_of_domain'
                  ELSE NULL
                END
              ) AS `status`
            FROM `events` AS `t0`
          ) AS `t1`
        ) AS `t2`
      ) AS `t3`
    ) AS `t4`
  ) AS `t5`
  GROUP BY
    1,
    2
) AS `t6`;

-- query: points, a 256-cell-wide grid, first per user
WITH `t6` AS (
  SELECT
    (
      (
        421 - `t5`.`b0`
      ) * 256
    ) + `t5`.`b1` AS `value`,
    COALESCE(
      COALESCE(
        `t5`.`status`,
        CASE
          WHEN (
            `t5`.`u` IS NULL
          ) OR (
            `t5`.`u` = ''
          )
          THEN 'missing_user'
          ELSE CAST(NULL AS STRING)
        END
      ),
      'kept'
    ) AS `status`,
    `t5`.`u`,
    `t5`.`o`
  FROM (
    SELECT
      `t4`.`y`,
      `t4`.`x`,
      `t4`.`status`,
      `t4`.`u`,
      `t4`.`o`,
      `t4`.`g0`,
      `t4`.`g1`,
      `t4`.`d0`,
      `t4`.`d1`,
      `t4`.`d0` + CAST((
        `t4`.`y` >= (
          (
            CAST(`t4`.`d0` + 1 AS FLOAT64) * 0.0005924170616113745
          ) + 40.6
        )
      )
      AND (
        `t4`.`d0` <> 421
      ) AS INT64) AS `b0`,
      `t4`.`d1` + CAST((
        `t4`.`x` >= (
          (
            CAST(`t4`.`d1` + 1 AS FLOAT64) * 0.0007812500000000111
          ) + -74.05
        )
      )
      AND (
        `t4`.`d1` <> 255
      ) AS INT64) AS `b1`
    FROM (
      SELECT
        `t3`.`y`,
        `t3`.`x`,
        `t3`.`status`,
        `t3`.`u`,
        `t3`.`o`,
        `t3`.`g0`,
        `t3`.`g1`,
        `t3`.`g0` - CAST(`t3`.`y` < (
          (
            CAST(`t3`.`g0` AS FLOAT64) * 0.0005924170616113745
          ) + 40.6
        ) AS INT64) AS `d0`,
        `t3`.`g1` - CAST(`t3`.`x` < (
          (
            CAST(`t3`.`g1` AS FLOAT64) * 0.0007812500000000111
          ) + -74.05
        ) AS INT64) AS `d1`
      FROM (
        SELECT
          `t2`.`y`,
          `t2`.`x`,
          `t2`.`status`,
          `t2`.`u`,
          `t2`.`o`,
          CASE
            WHEN `t2`.`status` IS NULL
            THEN LEAST(CAST(FLOOR(ieee_divide(`t2`.`y` - 40.6, 0.25) * 422) AS INT64), 421)
            ELSE CAST(NULL AS INT64)
          END AS `g0`,
          CASE
            WHEN `t2`.`status` IS NULL
            THEN LEAST(
              CAST(FLOOR(ieee_divide(`t2`.`x` - -74.05, 0.20000000000000284) * 256) AS INT64),
              255
            )
            ELSE CAST(NULL AS INT64)
          END AS `g1`
        FROM (
          SELECT
            `t1`.`y`,
            `t1`.`x`,
            COALESCE(
              `t1`.`status`,
              CASE
                WHEN NOT (
                  `t1`.`y` BETWEEN 40.6 AND 40.85 AND `t1`.`x` BETWEEN -74.05 AND -73.85
                )
                THEN 'out_of_domain'
                ELSE NULL
              END
            ) AS `status`,
            `t1`.`u`,
            `t1`.`o`
          FROM (
            SELECT
              `t0`.`lat` AS `y`,
              `t0`.`lon` AS `x`,
              COALESCE(
                CASE
                  WHEN (
                    `t0`.`lat` IS NULL
                  ) OR IS_NAN(`t0`.`lat`)
                  THEN 'null'
                  ELSE CAST(NULL AS STRING)
                END,
                CASE
                  WHEN (
                    `t0`.`lon` IS NULL
                  ) OR IS_NAN(`t0`.`lon`)
                  THEN 'null'
                  ELSE CAST(NULL AS STRING)
                END
              ) AS `status`,
              TRIM(`t0`.`user_id`, ' ') AS `u`,
              `t0`.`event_time` AS `o`
            FROM `points` AS `t0`
          ) AS `t1`
        ) AS `t2`
      ) AS `t3`
    ) AS `t4`
  ) AS `t5`
)
SELECT
  `t11`.`value`,
  `t11`.`status`,
  `t11`.`rows`,
  CASE
    WHEN `t11`.`status` = 'kept'
    THEN COALESCE(`t15`.`count`, 0)
    ELSE CAST(NULL AS INT64)
  END AS `count`,
  CASE
    WHEN `t11`.`status` = 'kept'
    THEN COALESCE(`t15`.`users`, 0)
    ELSE CAST(NULL AS INT64)
  END AS `users`
FROM (
  SELECT
    `t8`.`value`,
    `t8`.`status`,
    COUNT(*) AS `rows`
  FROM (
    SELECT
      CASE
        WHEN `t7`.`status` IN ('kept', 'out_of_domain')
        THEN `t7`.`value`
        ELSE CAST(NULL AS INT64)
      END AS `value`,
      `t7`.`status`,
      `t7`.`u`,
      `t7`.`o`
    FROM `t6` AS `t7`
  ) AS `t8`
  GROUP BY
    1,
    2
) AS `t11`
LEFT OUTER JOIN (
  SELECT
    `t13`.`value`,
    COUNT(*) AS `count`,
    SUM(CAST(`t13`.`k` = 1 AS INT64)) AS `users`
  FROM (
    SELECT
      *
    FROM (
      SELECT
        `t9`.`value`,
        (
          ROW_NUMBER() OVER (
            PARTITION BY `t9`.`u`
            ORDER BY `t9`.`o` IS NULL ASC, `t9`.`o` ASC, `t9`.`value` ASC
          ) - 1
        ) + 1 AS `k`
      FROM (
        SELECT
          CASE
            WHEN `t7`.`status` IN ('kept', 'out_of_domain')
            THEN `t7`.`value`
            ELSE CAST(NULL AS INT64)
          END AS `value`,
          `t7`.`status`,
          `t7`.`u`,
          `t7`.`o`
        FROM `t6` AS `t7`
        WHERE
          `t7`.`status` = 'kept'
      ) AS `t9`
    ) AS `t12`
    WHERE
      `t12`.`k` = 1
  ) AS `t13`
  GROUP BY
    1
) AS `t15`
  ON `t11`.`value` = `t15`.`value` AND `t11`.`status` = 'kept';

