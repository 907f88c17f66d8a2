/** The Boot starter over the application's DataSource ({@code locksmith.url=jdbc}). */
@NullMarked
package dev.locksmith.spring.jdbc;

import org.jspecify.annotations.NullMarked;
