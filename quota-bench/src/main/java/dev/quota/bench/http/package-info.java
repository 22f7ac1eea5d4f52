/**
 * The HTTP scenario's parts: the accounts route on Jersey and Grizzly, the baseline filter, and the
 * load generator that runs in a process of its own.
 */
@NullMarked
package dev.quota.bench.http;

import org.jspecify.annotations.NullMarked;
