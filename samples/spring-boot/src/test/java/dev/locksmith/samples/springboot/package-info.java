/** Smoke test of the Spring Boot sample, against the file lock provider and H2. */
@NullMarked
package dev.locksmith.samples.springboot;

import org.jspecify.annotations.NullMarked;
