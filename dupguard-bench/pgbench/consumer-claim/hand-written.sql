\set base random(1, 2000000000)
INSERT INTO pgb_proc SELECT id FROM unnest(ARRAY(SELECT 'k' || (:base + g) FROM generate_series(1,70) g) || ARRAY(SELECT 'k' || (g) FROM generate_series(1,30) g)) id ON CONFLICT DO NOTHING RETURNING id;
