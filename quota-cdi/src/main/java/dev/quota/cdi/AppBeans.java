package dev.quota.cdi;

import dev.quota.core.QuotaListener;
import dev.quota.core.spi.CustomerDirectory;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** What the application's own beans add to the quota service; looked up once, at start-up. */
interface AppBeans {

    /**
     * The application's customer directory, or null when it produces none (or its producer
     * returned null: the plans file's customers then apply).
     *
     * @throws InvalidSettingsException if there is more than one
     */
    @Nullable CustomerDirectory customers();

    /** The application's {@link QuotaListener} beans (metrics, audit), in no particular order. */
    List<QuotaListener> listeners();

    /**
     * The one bean of the type named {@code className} (such as {@code javax.cache.CacheManager}),
     * or null when there is none or the type is not on the class path.
     */
    @Nullable Object bean(String className);
}
