require('reflect-metadata');
