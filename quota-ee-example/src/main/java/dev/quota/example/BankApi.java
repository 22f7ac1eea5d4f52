package dev.quota.example;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/**
 * The bank API under {@code /api}. It lists no classes, so the runtime scans the WAR for
 * resources and providers, and finds quota-cdi's provider in {@code WEB-INF/lib}: that is all the
 * wiring quotas need.
 */
@ApplicationPath("api")
public class BankApi extends Application {
}
