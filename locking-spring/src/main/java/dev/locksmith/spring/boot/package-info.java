/** Spring Boot auto-configuration: properties, providers, health and metrics. */
@NullMarked
package dev.locksmith.spring.boot;

import org.jspecify.annotations.NullMarked;
