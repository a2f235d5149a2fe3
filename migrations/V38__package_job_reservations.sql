-- Large packages keep their promise (docs/design.md §13): a claim answered 202
-- has already taken the package's count, the user's and its templates'
-- quotas in its request, and its job only writes the coupons (or gives the
-- counts back). Jobs recorded before this (no reservation) still run the
-- whole claim on the worker, as they did; the mark tells them apart.
ALTER TABLE package_jobs ADD COLUMN reserved boolean NOT NULL DEFAULT false;
