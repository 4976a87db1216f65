//! The help texts of LLVM 19's `clang-offload-bundler`, captured from the tool
//! (`--help`, `--help-hidden`, `--help-list`, `--help-list-hidden`; `-h` prints the
//! `--help-list` text). The `USAGE:` line names the program as invoked (the file name of
//! `argv[0]`).

/// Renders a help text for program name `prog`.
pub fn render(text: (&str, &str), prog: &str) -> String {
    format!("{}USAGE: {prog} [options]{}", text.0, text.1)
}

/// `--help`: the text before and after the `USAGE:` line's program name.
pub const HELP: (&str, &str) = (
    r#"OVERVIEW: A tool to bundle several input files of the specified type <type> 
referring to the same source file but different targets into a single 
one. The resulting file can also be unbundled into different files by 
this tool if -unbundle is provided.

"#,
    r#"

OPTIONS:

Generic Options:

  --help                  - Display available options (--help-hidden for more)
  --help-list             - Display list of available options (--help-list-hidden for more)
  --version               - Display the version of this program

clang-offload-bundler options:

  --###                   - Print any external commands that are to be executed instead of actually executing them - for testing purposes.
  --allow-missing-bundles - Create empty files if bundles are missing when unbundling.
  --bundle-align=<uint>   - Alignment of bundle for binary files
  --check-input-archive   - Check if input heterogeneous archive is valid in terms of TargetID rules.
  --compress              - Compress output file when bundling.
  --compression-level=<n> - Specify the compression level (integer)
  --hip-openmp-compatible - Treat hip and hipv4 offload kinds as compatible with openmp kind, and vice versa.
  --input=<string>        - Input file. Can be specified multiple times for multiple input files.
  --inputs=<string>       - [<input file>,...] (deprecated)
  --list                  - List bundle IDs in the bundled file.
  --output=<string>       - Output file. Can be specified multiple times for multiple output files.
  --outputs=<string>      - [<output file>,...] (deprecated)
  --targets=<string>      - [<offload kind>-<target triple>,...]
  --type=<string>         - Type of the files to be bundled/unbundled.
                            Current supported types are:
                              i    - cpp-output
                              ii   - c++-cpp-output
                              cui  - cuda-cpp-output
                              hipi - hip-cpp-output
                              d    - dependency
                              ll   - llvm
                              bc   - llvm-bc
                              s    - assembler
                              o    - object
                              a    - archive of objects
                              gch  - precompiled-header
                              ast  - clang AST file
  --unbundle              - Unbundle bundled file into several output files.
  --verbose               - Print debug information.
"#,
);

/// `--help-hidden`: the text before and after the `USAGE:` line's program name.
pub const HELP_HIDDEN: (&str, &str) = (
    r#"OVERVIEW: A tool to bundle several input files of the specified type <type> 
referring to the same source file but different targets into a single 
one. The resulting file can also be unbundled into different files by 
this tool if -unbundle is provided.

"#,
    r#"

OPTIONS:

Generic Options:

  --help                  - Display available options (--help-hidden for more)
  --help-hidden           - Display all available options
  --help-list             - Display list of available options (--help-list-hidden for more)
  --help-list-hidden      - Display list of all available options
  --print-all-options     - Print all option values after command line parsing
  --print-options         - Print non-default options after command line parsing
  --version               - Display the version of this program

clang-offload-bundler options:

  --###                   - Print any external commands that are to be executed instead of actually executing them - for testing purposes.
  --allow-missing-bundles - Create empty files if bundles are missing when unbundling.
  --bundle-align=<uint>   - Alignment of bundle for binary files
  --check-input-archive   - Check if input heterogeneous archive is valid in terms of TargetID rules.
  --compress              - Compress output file when bundling.
  --compression-level=<n> - Specify the compression level (integer)
  --hip-openmp-compatible - Treat hip and hipv4 offload kinds as compatible with openmp kind, and vice versa.
  --input=<string>        - Input file. Can be specified multiple times for multiple input files.
  --inputs=<string>       - [<input file>,...] (deprecated)
  --list                  - List bundle IDs in the bundled file.
  --output=<string>       - Output file. Can be specified multiple times for multiple output files.
  --outputs=<string>      - [<output file>,...] (deprecated)
  --targets=<string>      - [<offload kind>-<target triple>,...]
  --type=<string>         - Type of the files to be bundled/unbundled.
                            Current supported types are:
                              i    - cpp-output
                              ii   - c++-cpp-output
                              cui  - cuda-cpp-output
                              hipi - hip-cpp-output
                              d    - dependency
                              ll   - llvm
                              bc   - llvm-bc
                              s    - assembler
                              o    - object
                              a    - archive of objects
                              gch  - precompiled-header
                              ast  - clang AST file
  --unbundle              - Unbundle bundled file into several output files.
  --verbose               - Print debug information.
"#,
);

/// `--help-list` and `-h`: the text before and after the `USAGE:` line's program name.
pub const HELP_LIST: (&str, &str) = (
    r#"OVERVIEW: A tool to bundle several input files of the specified type <type> 
referring to the same source file but different targets into a single 
one. The resulting file can also be unbundled into different files by 
this tool if -unbundle is provided.

"#,
    r#"

OPTIONS:
  --###                   - Print any external commands that are to be executed instead of actually executing them - for testing purposes.
  --allow-missing-bundles - Create empty files if bundles are missing when unbundling.
  --bundle-align=<uint>   - Alignment of bundle for binary files
  --check-input-archive   - Check if input heterogeneous archive is valid in terms of TargetID rules.
  --compress              - Compress output file when bundling.
  --compression-level=<n> - Specify the compression level (integer)
  --help                  - Display available options (--help-hidden for more)
  --hip-openmp-compatible - Treat hip and hipv4 offload kinds as compatible with openmp kind, and vice versa.
  --input=<string>        - Input file. Can be specified multiple times for multiple input files.
  --inputs=<string>       - [<input file>,...] (deprecated)
  --list                  - List bundle IDs in the bundled file.
  --output=<string>       - Output file. Can be specified multiple times for multiple output files.
  --outputs=<string>      - [<output file>,...] (deprecated)
  --targets=<string>      - [<offload kind>-<target triple>,...]
  --type=<string>         - Type of the files to be bundled/unbundled.
                            Current supported types are:
                              i    - cpp-output
                              ii   - c++-cpp-output
                              cui  - cuda-cpp-output
                              hipi - hip-cpp-output
                              d    - dependency
                              ll   - llvm
                              bc   - llvm-bc
                              s    - assembler
                              o    - object
                              a    - archive of objects
                              gch  - precompiled-header
                              ast  - clang AST file
  --unbundle              - Unbundle bundled file into several output files.
  --verbose               - Print debug information.
  --version               - Display the version of this program
"#,
);

/// `--help-list-hidden`: the text before and after the `USAGE:` line's program name.
pub const HELP_LIST_HIDDEN: (&str, &str) = (
    r#"OVERVIEW: A tool to bundle several input files of the specified type <type> 
referring to the same source file but different targets into a single 
one. The resulting file can also be unbundled into different files by 
this tool if -unbundle is provided.

"#,
    r#"

OPTIONS:
  --###                   - Print any external commands that are to be executed instead of actually executing them - for testing purposes.
  --allow-missing-bundles - Create empty files if bundles are missing when unbundling.
  --bundle-align=<uint>   - Alignment of bundle for binary files
  --check-input-archive   - Check if input heterogeneous archive is valid in terms of TargetID rules.
  --compress              - Compress output file when bundling.
  --compression-level=<n> - Specify the compression level (integer)
  --help                  - Display available options (--help-hidden for more)
  --help-hidden           - Display all available options
  --help-list             - Display list of available options (--help-list-hidden for more)
  --help-list-hidden      - Display list of all available options
  --hip-openmp-compatible - Treat hip and hipv4 offload kinds as compatible with openmp kind, and vice versa.
  --input=<string>        - Input file. Can be specified multiple times for multiple input files.
  --inputs=<string>       - [<input file>,...] (deprecated)
  --list                  - List bundle IDs in the bundled file.
  --output=<string>       - Output file. Can be specified multiple times for multiple output files.
  --outputs=<string>      - [<output file>,...] (deprecated)
  --print-all-options     - Print all option values after command line parsing
  --print-options         - Print non-default options after command line parsing
  --targets=<string>      - [<offload kind>-<target triple>,...]
  --type=<string>         - Type of the files to be bundled/unbundled.
                            Current supported types are:
                              i    - cpp-output
                              ii   - c++-cpp-output
                              cui  - cuda-cpp-output
                              hipi - hip-cpp-output
                              d    - dependency
                              ll   - llvm
                              bc   - llvm-bc
                              s    - assembler
                              o    - object
                              a    - archive of objects
                              gch  - precompiled-header
                              ast  - clang AST file
  --unbundle              - Unbundle bundled file into several output files.
  --verbose               - Print debug information.
  --version               - Display the version of this program
"#,
);
