# Writes OUTPUT, a C++ file defining `variate::data::SYMBOL` (std::span<const unsigned char>) holding
# the bytes of INPUT. Run as `cmake -DINPUT=... -DOUTPUT=... -DSYMBOL=... -P embed_file.cmake`.
file(READ "${INPUT}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
file(WRITE "${OUTPUT}" "#include <span>\nnamespace variate::data {\nstatic const unsigned char ${SYMBOL}_bytes[] = {\n${bytes}\n};\nextern const std::span<const unsigned char> ${SYMBOL}(${SYMBOL}_bytes, sizeof(${SYMBOL}_bytes));\n}\n")
