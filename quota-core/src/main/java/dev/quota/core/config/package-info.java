/**
 * Loading a {@link dev.quota.core.QuotaConfig} from YAML: {@link dev.quota.core.config.QuotaConfigLoader}
 * reads and checks a file, reporting every problem at once as {@link dev.quota.core.config.ConfigError}s
 * with their paths, and {@link dev.quota.core.config.ApiKeys} hashes API keys for the file. Nothing
 * here is null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.quota.core.config;

import org.jspecify.annotations.NullMarked;
