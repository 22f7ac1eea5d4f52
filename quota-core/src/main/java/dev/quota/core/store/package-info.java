/**
 * The in-JVM store: buckets in this JVM's memory, for a single instance, for tests, and as the
 * local fallback while a shared store is down.
 */
@NullMarked
package dev.quota.core.store;

import org.jspecify.annotations.NullMarked;
