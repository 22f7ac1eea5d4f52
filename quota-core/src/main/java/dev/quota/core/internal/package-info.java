/**
 * Implementation shared by this library's own modules: calendar windows, hashing and log
 * throttling. Public only so that the store modules ({@code quota-redis}, {@code quota-jcache})
 * and {@code quota-jaxrs} can use it; nothing
 * here is API, and any of it may change in any release. No public type outside an
 * {@code internal} package names a type from one (a test checks this).
 */
@NullMarked
package dev.quota.core.internal;

import org.jspecify.annotations.NullMarked;
